// Receiver addresses an attacker could use to reach a metadata service: every link-local and cloud
// metadata address, in every IPv4 notation and IPv6 embedding, is refused when a webhook is
// registered or simulated, again when a stored address is delivered to, and again after DNS when a
// host name resolves to one. Loopback and private addresses stay allowed.

import type { LookupAddress } from 'node:dns';
import { afterAll, describe, expect, it } from 'vitest';
import { guardedLookupWith } from '../../src/server/notifications/url-guard.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { emitEvent, waitForDelivery } from '../server/webhooks-support.js';
import { REFUSED_IPV4, allowedUrls, ipv6Forms, refusedUrls } from './fixtures/addresses.js';

const t: TestServer = await startTestServer({ memory: true });
const figures: string[] = [];

afterAll(async () => {
  await t.close();
  console.log(`receiver addresses: ${figures.join('; ')}`);
});

const register = (url: string) => t.request('POST', '/v1/notifications/webhooks', { body: { url, event_types: [{ name: '*' }] } });

describe('registration', () => {
  it('refuses every address of the table with 400 INVALID_PARAMETER_VALUE on /url', async () => {
    const accepted: string[] = [];
    for (const [label, url] of refusedUrls()) {
      const answer = await register(url);
      if (answer.status !== 400 || answer.body.details?.[0]?.issue !== 'INVALID_PARAMETER_VALUE' || answer.body.details[0].field !== '/url') {
        accepted.push(`${label}: ${url} -> ${answer.status}`);
      }
    }
    expect(accepted).toEqual([]);
    figures.push(`${refusedUrls().length} refused at registration`);
  });

  it('refuses them as simulate-event targets too', async () => {
    const accepted: string[] = [];
    for (const [label, url] of refusedUrls()) {
      const answer = await t.request('POST', '/v1/notifications/simulate-event', { body: { url, event_type: 'PAYMENT.CAPTURE.COMPLETED' } });
      if (answer.status !== 400) accepted.push(`${label}: ${url} -> ${answer.status}`);
    }
    expect(accepted).toEqual([]);
  });

  it('accepts loopback, private and neighbouring addresses (the positive control)', async () => {
    const refused: string[] = [];
    for (const url of allowedUrls()) {
      const answer = await register(url);
      if (answer.status !== 201) refused.push(`${url} -> ${answer.status} ${answer.text.slice(0, 120)}`);
      else expect((await t.request('DELETE', `/v1/notifications/webhooks/${answer.body.id}`)).status).toBe(204);
    }
    expect(refused).toEqual([]);
    figures.push(`${allowedUrls().length} allowed`);
  });
});

describe('connect time', () => {
  /**
   * The addresses a resolver could answer with: each refused address of the table as the URL parser
   * writes it, and each IPv6 form as written in the table (resolvers print mapped forms dotted).
   */
  const resolvedForms = () => [
    ...refusedUrls()
      .map(([label, url]) => [label, new URL(url).hostname.replace(/^\[|\]$/g, '')] as const)
      .filter(([, host]) => /^[0-9.]+$|:/.test(host)),
    ...REFUSED_IPV4.flatMap(([ipv4]) => ipv6Forms(ipv4).map(([form, host]) => [`${ipv4} ${form} as written`, host.replace(/^\[|\]$/g, '')] as const)),
    ['link-local with a zone', 'fe80::1%eth0'] as const,
  ];

  function lookupThrough(addresses: LookupAddress[], hostname = 'receiver.example.test'): Promise<{ code?: string; address?: unknown }> {
    const lookup = guardedLookupWith((_name, _options, callback) => callback(null, addresses));
    return new Promise((resolve) => lookup(hostname, {}, (error, address) => resolve(error ? { code: (error as { code?: string }).code } : { address })));
  }

  it('a host name resolving to any refused address is refused after DNS, also when it is one of several', async () => {
    const passed: string[] = [];
    for (const [label, address] of resolvedForms()) {
      const family = address.includes(':') ? 6 : 4;
      const alone = await lookupThrough([{ address, family }]);
      const mixed = await lookupThrough([{ address: '127.0.0.1', family: 4 }, { address, family }]);
      if (alone.code !== 'EFORBIDDEN' || mixed.code !== 'EFORBIDDEN') passed.push(`${label}: ${address}`);
    }
    expect(passed).toEqual([]);
    // Positive control: the same lookup passes an allowed address through.
    expect(await lookupThrough([{ address: '127.0.0.1', family: 4 }])).toEqual({ address: '127.0.0.1' });
    expect(await lookupThrough([{ address: '::1', family: 6 }])).toEqual({ address: '::1' });
    figures.push(`${resolvedForms().length} resolved addresses refused after DNS`);
  });

  it('an address stored before it was refused is not connected to at delivery', async () => {
    const id = (await register('http://127.0.0.1:9/stored')).body.id as string;
    await t.server.db.updateTable('webhook_subscriptions').set({ url: 'http://[64:ff9b::a9fe:a9fe]/stored' }).where('id', '=', id).execute();
    const event = await emitEvent(t, { eventType: 'PAYMENT.CAPTURE.COMPLETED', resourceType: 'capture', resourceId: 'SSRFSTORED0000001' });
    const delivery = await waitForDelivery(t, event.id, (d) => d.attempt_count >= 1);
    expect(delivery.attempts[0]).toMatchObject({ status_code: null, error: 'Link-local and cloud metadata addresses cannot receive webhooks.' });
  });
});
