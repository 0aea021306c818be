// The Host header must not write links. A request sent with `Host: attacker.example` used to store
// links to that host in the answer, in the event body (signed and delivered to the merchant's
// receiver, with a certificate URL on that host) and in the request-id record a replay returns.
// Links now come from the public URL (--public-url, default the listening address) or from a
// Host on the allow-list (the listening address, localhost on its port, the public URL's host).

import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Parser } from '@oclif/core';
import Serve from '../../src/commands/serve.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startReceiver, waitUntil, type Receiver } from '../server/webhooks-support.js';
import { settle } from './fixtures/resources.js';

const FOREIGN = 'attacker.example';
const CARD = { card: { number: '4111111111111111', expiry: '2030-12' } } as const;

interface Answer {
  status: number;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** One request with the Host header given (fetch will not send a chosen Host). */
function withHost(base: string, host: string, method: string, path: string, options: { token?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Answer> {
  const target = new URL(path, base);
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers: Record<string, string> = { host, ...(options.headers ?? {}) };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (payload !== undefined) headers['content-type'] = 'application/json';
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ hostname: target.hostname, port: target.port, path: `${target.pathname}${target.search}`, method, headers, timeout: 15_000 }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = text;
        }
        resolve({ status: response.statusCode ?? 0, text, body });
      });
    });
    outgoing.on('timeout', () => outgoing.destroy(new Error('timed out')));
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}

/** Every href in a JSON document. */
function hrefs(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(hrefs);
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value as Record<string, unknown>).flatMap(([key, inner]) => (key === 'href' && typeof inner === 'string' ? [inner] : hrefs(inner)));
}

const figures: string[] = [];

/** An authorization made with every request carrying `host`; its answer, request id and the events it made. */
async function authorizeWithHost(t: TestServer, host: string): Promise<{ answer: Answer; requestId: string; authId: string }> {
  const token = t.merchant.token;
  const order = await withHost(t.url, host, 'POST', '/v2/checkout/orders', {
    token,
    body: { intent: 'AUTHORIZE', purchase_units: [{ amount: { currency_code: 'USD', value: '12.00' } }], payment_source: CARD },
    headers: { prefer: 'return=representation', 'service-request-id': randomUUID() },
  });
  expect(order.status, order.text).toBe(201);
  const requestId = randomUUID();
  const answer = await withHost(t.url, host, 'POST', `/v2/checkout/orders/${order.body.id as string}/authorize`, {
    token,
    headers: { prefer: 'return=representation', 'service-request-id': requestId },
  });
  expect(answer.status, answer.text).toBe(201);
  return { answer, requestId, authId: answer.body.purchase_units[0].payments.authorizations[0].id as string };
}

describe('links under a foreign Host header (default public URL: the listening address)', () => {
  let t: TestServer;
  let receiver: Receiver;
  beforeAll(async () => {
    t = await startTestServer({ memory: true });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
    console.log(`host links: ${figures.join('; ')}`);
  });

  it('a webhook made under a foreign Host gets no foreign links and no foreign certificate URL', async () => {
    const created = await withHost(t.url, FOREIGN, 'POST', '/v1/notifications/webhooks', {
      token: t.merchant.token,
      body: { url: receiver.url, event_types: [{ name: '*' }] },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.text).not.toContain(FOREIGN);
    expect(hrefs(created.body).every((href) => href.startsWith(`${t.url}/`))).toBe(true);
  });

  it('the answer, the signed event and a replay of the request id from the real host link to the server, never to the foreign host', async () => {
    const { answer, requestId, authId } = await authorizeWithHost(t, FOREIGN);
    expect(answer.text).not.toContain(FOREIGN);
    const links = hrefs(answer.body);
    expect(links.length).toBeGreaterThan(3);
    expect(links.every((href) => href.startsWith(`${t.url}/`))).toBe(true);

    // The event delivered to the receiver, and the certificate URL it is signed under.
    await waitUntil(() => receiver.received.some((delivery) => delivery.body.includes(authId)), 15_000, 'the authorization event delivered');
    await settle(t, async () => String(receiver.received.length));
    const events = receiver.received.filter((delivery) => delivery.body.includes(authId));
    expect(events.length).toBeGreaterThan(0);
    for (const event of events) {
      expect(event.body).not.toContain(FOREIGN);
      expect(String(event.headers['paypal-cert-url'])).toMatch(new RegExp(`^${t.url}/v1/notifications/certs/`));
      expect(hrefs(JSON.parse(event.body)).every((href) => href.startsWith(`${t.url}/`))).toBe(true);
    }
    const stored = await t.server.db.selectFrom('events').select('body').where('resource_id', '=', authId).execute();
    expect(stored.length).toBeGreaterThan(0);
    expect(stored.map((row) => row.body).join('\n')).not.toContain(FOREIGN);

    // The replay from the real host answers the same (stored) links.
    const orderId = answer.body.id as string;
    const replay = await withHost(t.url, new URL(t.url).host, 'POST', `/v2/checkout/orders/${orderId}/authorize`, {
      token: t.merchant.token,
      headers: { prefer: 'return=representation', 'service-request-id': requestId },
    });
    expect([200, 201]).toContain(replay.status);
    expect(replay.text).not.toContain(FOREIGN);
    expect(hrefs(replay.body)).toEqual(links);
    figures.push(`foreign Host: ${links.length} links in the answer, ${events.length} events delivered, none on ${FOREIGN}`);
  });

  it('an allowed Host (localhost on the listening port) is used as given (positive control)', async () => {
    const port = new URL(t.url).port;
    const { answer } = await authorizeWithHost(t, `localhost:${port}`);
    const links = hrefs(answer.body);
    expect(links.length).toBeGreaterThan(3);
    expect(links.every((href) => href.startsWith(`http://localhost:${port}/`))).toBe(true);
  });

  it('other spellings that are not the listening address are ignored too', async () => {
    const port = new URL(t.url).port;
    for (const host of [`${FOREIGN}:${port}`, `localhost:1`, `127.0.0.2:${port}`, `user@${FOREIGN}`]) {
      const answer = await withHost(t.url, host, 'GET', '/v1/notifications/webhooks', { token: t.merchant.token });
      expect(answer.status, host).toBe(200);
      expect(hrefs(answer.body).every((href) => href.startsWith(`${t.url}/`)), host).toBe(true);
    }
  });
});

describe('with --public-url', () => {
  const PUBLIC = 'https://payments.example.test/sandbox';
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ memory: true, publicUrl: `${PUBLIC}/` });
  });
  afterAll(() => t.close());

  it('a foreign Host gets links to the public URL; the public URL host gets them too; the listening address stays allowed', async () => {
    const foreign = (await authorizeWithHost(t, FOREIGN)).answer;
    expect(foreign.text).not.toContain(FOREIGN);
    expect(hrefs(foreign.body).every((href) => href.startsWith(`${PUBLIC}/v2/`))).toBe(true);
    const viaPublic = (await authorizeWithHost(t, 'payments.example.test')).answer;
    expect(hrefs(viaPublic.body).every((href) => href.startsWith(`${PUBLIC}/v2/`))).toBe(true);
    const direct = (await authorizeWithHost(t, new URL(t.url).host)).answer;
    expect(hrefs(direct.body).every((href) => href.startsWith(`${t.url}/v2/`))).toBe(true);
  });

  it('is read by payctl serve (flag or environment) and refused when it is not an http(s) URL', async () => {
    const serveFlags = async (argv: string[]) => (await Parser.parse(argv, { flags: Serve.flags, strict: true })).flags;
    expect(await serveFlags(['--public-url', PUBLIC])).toMatchObject({ 'public-url': PUBLIC });
    process.env.PAYCTL_PUBLIC_URL = PUBLIC;
    try {
      expect(await serveFlags([])).toMatchObject({ 'public-url': PUBLIC });
    } finally {
      delete process.env.PAYCTL_PUBLIC_URL;
    }
    await expect(startTestServer({ memory: true, publicUrl: 'ftp://payments.example.test' })).rejects.toThrow(/--public-url/);
    await expect(startTestServer({ memory: true, publicUrl: 'https://payments.example.test/?a=1' })).rejects.toThrow(/--public-url/);
  });
});
