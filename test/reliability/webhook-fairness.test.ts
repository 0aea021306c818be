// One merchant must not stall another's webhooks. The attacker's receivers answer 200 at once and
// then drip one body byte a second for 30 s (undici's per-chunk timeout restarts on every byte); it
// points three webhooks and forty bare simulate-event URLs at them. While every one of its attempts
// is still open, a second merchant's event to a healthy receiver is delivered: it does not wait for
// the attacker's connections. The attacker never holds more than its share of the slots, its bare
// URLs together no more than their bound, and the deadline ends its attempts before the drip does.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ATTEMPT_TIMEOUT_MS } from '../../src/server/notifications/attempt.js';
import { MERCHANT_MAX_IN_FLIGHT, PER_RECEIVER_IN_FLIGHT, SIMULATED_URL_IN_FLIGHT, merchantShare } from '../../src/server/notifications/dispatcher.js';
import { startTestServer, type Merchant, type TestServer } from '../helpers/server.js';
import { waitUntil } from '../server/webhooks-support.js';

const DRIP_INTERVAL_MS = 1_000;
const DRIP_BYTES = 30;
const ATTACKER_WEBHOOKS = 3;
const EVENTS_PER_WEBHOOK = 10;
const BARE_URLS = 40;
/** What the attacker can hold: its share as the only merchant with work, at most what its receivers allow. */
const attackerBound = Math.min(MERCHANT_MAX_IN_FLIGHT, ATTACKER_WEBHOOKS * PER_RECEIVER_IN_FLIGHT + SIMULATED_URL_IN_FLIGHT);

interface Drip {
  url: string;
  /** Attempts that reached the receiver; open now (and the most at once); bare-URL ones likewise. */
  started: number;
  active: number;
  maxActive: number;
  bareActive: number;
  maxBareActive: number;
  /** The attempts open now, by number. */
  open: Set<number>;
  /** Attempts that ended before the drip was done (the sender hung up) or after it. */
  cutShort: number;
  completed: number;
  server: Server;
}

/** Answers 200 at once, then one byte a second for DRIP_BYTES seconds. */
async function startDrip(): Promise<Drip> {
  const drip = { started: 0, active: 0, maxActive: 0, bareActive: 0, maxBareActive: 0, cutShort: 0, completed: 0, open: new Set<number>() } as Drip;
  drip.server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const bare = (request.url ?? '').startsWith('/bare/');
      drip.started += 1;
      const number = drip.started;
      drip.open.add(number);
      drip.active += 1;
      drip.maxActive = Math.max(drip.maxActive, drip.active);
      if (bare) drip.maxBareActive = Math.max(drip.maxBareActive, (drip.bareActive += 1));
      response.writeHead(200, { 'content-type': 'text/plain' });
      let sent = 1;
      response.write('x');
      const timer = setInterval(() => {
        sent += 1;
        if (sent < DRIP_BYTES) response.write('x');
        else {
          clearInterval(timer);
          response.end('x');
        }
      }, DRIP_INTERVAL_MS);
      response.on('close', () => {
        clearInterval(timer);
        drip.open.delete(number);
        drip.active -= 1;
        if (bare) drip.bareActive -= 1;
        if (sent < DRIP_BYTES) drip.cutShort += 1;
        else drip.completed += 1;
      });
    });
  });
  await new Promise<void>((resolve) => drip.server.listen(0, '127.0.0.1', resolve));
  drip.url = `http://127.0.0.1:${(drip.server.address() as AddressInfo).port}`;
  return drip;
}

/** A healthy receiver: when each event id arrived. */
async function startHealthy(): Promise<{ url: string; arrivals: Map<string, number>; server: Server }> {
  const arrivals = new Map<string, number>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const id = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string }).id;
      if (!arrivals.has(id)) arrivals.set(id, Date.now());
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/victim`, arrivals, server };
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

let t: TestServer;
let attacker: Merchant;
let victim: Merchant;
let drip: Drip;
let healthy: Awaited<ReturnType<typeof startHealthy>>;
let victimWebhook: string;
const figures: string[] = [];

beforeAll(async () => {
  t = await startTestServer({ memory: true });
  attacker = t.merchant;
  victim = await t.createMerchant();
  drip = await startDrip();
  healthy = await startHealthy();
  const created = await t.request('POST', '/v1/notifications/webhooks', { token: victim.token, body: { url: healthy.url, event_types: [{ name: '*' }] } });
  expect(created.status).toBe(201);
  victimWebhook = created.body.id as string;
});

afterAll(async () => {
  await t.close();
  await closeServer(drip.server);
  await closeServer(healthy.server);
  console.log(`webhook fairness: ${figures.join('; ')}`);
});

/**
 * The victim's simulated events, sent at once: for each, milliseconds from the request to its
 * arrival at the healthy receiver; and whether every attacker attempt open when they were sent was
 * still open when the last arrived (then none of them waited for an attacker connection to end).
 */
async function victimDeliveries(count: number): Promise<{ latenciesMs: number[]; openThroughout: boolean; activeAtSend: number; activeAtArrival: number }> {
  const openAtSend = new Set(drip.open);
  const activeAtSend = drip.active;
  const sent = Date.now();
  const answers = await Promise.all(
    Array.from({ length: count }, () =>
      t.request('POST', '/v1/notifications/simulate-event', {
        token: victim.token,
        body: { webhook_id: victimWebhook, event_type: 'PAYMENT.CAPTURE.COMPLETED' },
      }),
    ),
  );
  for (const answer of answers) expect(answer.status).toBe(202);
  const ids = answers.map((answer) => answer.body.id as string);
  // A bound against hanging, not a speed check: the assertions are on the attacker's connections.
  await waitUntil(() => ids.every((id) => healthy.arrivals.has(id)), 25_000, "the victim's events at its receiver");
  return {
    latenciesMs: ids.map((id) => healthy.arrivals.get(id)! - sent),
    openThroughout: [...openAtSend].every((connection) => drip.open.has(connection)),
    activeAtSend,
    activeAtArrival: drip.active,
  };
}

describe("a merchant's dripping receivers against another merchant's delivery", () => {
  it('the limits are what the README states', () => {
    expect(MERCHANT_MAX_IN_FLIGHT).toBe(16);
    expect(merchantShare(1)).toBe(16);
    expect(merchantShare(2)).toBe(16);
    expect(merchantShare(4)).toBe(PER_RECEIVER_IN_FLIGHT);
    expect(SIMULATED_URL_IN_FLIGHT).toBe(4);
    expect(ATTEMPT_TIMEOUT_MS).toBe(10_000);
  });

  it("delivers the victim's event while every attacker connection is still open", async () => {
    const baseline = [...(await victimDeliveries(1)).latenciesMs, ...(await victimDeliveries(3)).latenciesMs];

    const hooks = await Promise.all(
      Array.from({ length: ATTACKER_WEBHOOKS }, (_, index) =>
        t.request('POST', '/v1/notifications/webhooks', { token: attacker.token, body: { url: `${drip.url}/hook${index}`, event_types: [{ name: '*' }] } }),
      ),
    );
    for (const hook of hooks) expect(hook.status).toBe(201);
    // All the attacker's work at once, so that its attempts start together (each ends at the deadline).
    const bodies = [
      ...hooks.flatMap((hook) => Array.from({ length: EVENTS_PER_WEBHOOK }, () => ({ webhook_id: hook.body.id as string }))),
      ...Array.from({ length: BARE_URLS }, (_, index) => ({ url: `${drip.url}/bare/${index}` })),
    ];
    const simulated = await Promise.all(
      bodies.map((body) => t.request('POST', '/v1/notifications/simulate-event', { token: attacker.token, body: { ...body, event_type: 'PAYMENT.CAPTURE.COMPLETED' } })),
    );
    for (const answer of simulated) expect(answer.status).toBe(202);
    // The attacker has far more work than slots: it fills its share.
    await waitUntil(() => drip.active >= attackerBound, 20_000, 'the attacker holding its slots');

    const attacked = await victimDeliveries(3);
    // Delivered while every attacker attempt open at the time was still open: it waited for none of them.
    expect(attacked.openThroughout).toBe(true);
    expect(attacked.activeAtSend).toBe(attackerBound);
    expect(attacked.activeAtArrival).toBe(attackerBound);
    expect(drip.maxActive).toBeLessThanOrEqual(attackerBound);
    figures.push(
      `victim latency without the attack ${baseline.join(', ')} ms; with ${attacked.activeAtSend} dripping attempts of the attacker open ${attacked.latenciesMs.join(', ')} ms`,
      `attacker: ${ATTACKER_WEBHOOKS} webhooks x ${EVENTS_PER_WEBHOOK} events + ${BARE_URLS} bare URLs, ${drip.active} in flight when the victim's events were sent, ${drip.cutShort} cut off before`,
    );
  });

  it('ends each dripping attempt at the deadline, long before the drip ends, and counts the 200', async () => {
    const firstCut = Date.now();
    await waitUntil(() => drip.cutShort >= 1, 2 * ATTEMPT_TIMEOUT_MS, 'the first attempt cut off by the deadline');
    // The drip lasts DRIP_BYTES seconds: every attempt that ended so far was ended by the sender.
    expect(drip.completed).toBe(0);
    await waitUntil(
      async () => {
        const log = await t.request('GET', '/_payctl/deliveries?status=DELIVERED&page_size=500', { token: attacker.token });
        return (log.body.deliveries as unknown[]).length >= 1;
      },
      10_000,
      "an attacker's delivery recorded",
    );
    const log = await t.request('GET', '/_payctl/deliveries?status=DELIVERED&page_size=500', { token: attacker.token });
    const attempts = (log.body.deliveries as Array<{ attempts: Array<{ status_code: number | null; duration_ms: number }> }>).flatMap((delivery) => delivery.attempts);
    expect(attempts.length).toBeGreaterThan(0);
    for (const attempt of attempts) {
      expect(attempt.status_code).toBe(200);
      expect(attempt.duration_ms).toBeLessThan(DRIP_BYTES * DRIP_INTERVAL_MS);
    }
    // As slots free up, the bare URLs get their turn: never more than their bound, nor the attacker more than its share.
    await waitUntil(() => drip.maxBareActive >= 1, 3 * ATTEMPT_TIMEOUT_MS, 'an attempt to a bare URL');
    expect(drip.maxBareActive).toBeLessThanOrEqual(SIMULATED_URL_IN_FLIGHT);
    expect(drip.maxActive).toBeLessThanOrEqual(attackerBound);
    figures.push(`attacker at most ${drip.maxActive} in flight, ${drip.maxBareActive} of them bare URLs`);
    figures.push(`deadline: ${drip.cutShort} attempts cut off, recorded durations ${Math.min(...attempts.map((a) => a.duration_ms))}-${Math.max(...attempts.map((a) => a.duration_ms))} ms (drip ${DRIP_BYTES} s; waited ${Date.now() - firstCut} ms here)`);
  });
});
