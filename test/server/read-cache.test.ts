// Kept answers of the payment resource GETs: given again only while a read now would answer the same.

import { request as httpGet } from 'node:http';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPostgres } from '../helpers/postgres.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { latestEventSeq, readCursor } from '../../src/server/notifications/store.js';
import { authorize, capturedPayment, refund, usd } from './payments-helpers.js';
import { waitUntil } from './webhooks-support.js';

/** A GET with a header fetch will not send as given (Host), over node:http. */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  return new Promise((done, fail) => {
    const sent = httpGet(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => done({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    sent.on('error', fail);
    sent.end();
  });
}

/**
 * Waits until the webhook dispatcher has fanned out every event. Its fan-out moves a cursor row, a
 * write that makes every kept answer stale, and it runs on its own 100 ms timer: a test counting
 * hits must not have it land between two reads (it did, 1 run in 12, before this wait).
 */
async function dispatcherCaughtUp(t: TestServer): Promise<void> {
  const { db } = t.server.deps;
  await waitUntil(async () => (await readCursor(db)) === (await latestEventSeq(db)), 5_000, 'the webhook dispatcher to fan out every event');
}

// SQLite's own machinery (the file's generation, another connection to it): no cache on PostgreSQL.
describe.skipIf(onPostgres)('kept answers on a file database', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(async () => {
    await t.close();
  });
  const stats = () => ({ ...t.server.deps.readCache.stats });

  it('gives a repeated GET the same status, headers and bytes without going through the route', async () => {
    const { captureId } = await capturedPayment(t, '30.00');
    await dispatcherCaughtUp(t);
    const first = await t.request('GET', `/v2/payments/captures/${captureId}`);
    const before = stats();
    const second = await t.request('GET', `/v2/payments/captures/${captureId}`);
    expect(stats().hits).toBe(before.hits + 1);
    expect(second.status).toBe(200);
    expect(second.text).toBe(first.text);
    for (const name of ['content-type', 'content-length', 'cache-control']) expect(second.headers.get(name)).toBe(first.headers.get(name));

    const head = await t.request('HEAD', `/v2/payments/captures/${captureId}`);
    expect(stats().hits).toBe(before.hits + 2);
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers.get('content-length')).toBe(first.headers.get('content-length'));
  });

  it('answers anew after a change made through the API', async () => {
    const { captureId } = await capturedPayment(t, '30.00');
    expect((await t.request('GET', `/v2/payments/captures/${captureId}`)).body.status).toBe('COMPLETED');
    await t.request('GET', `/v2/payments/captures/${captureId}`);
    const refunded = await refund(t, captureId, usd('5.00'));
    expect(refunded.status).toBe(200);
    const after = await t.request('GET', `/v2/payments/captures/${captureId}`);
    expect(after.body.status).toBe('PARTIALLY_REFUNDED');
    const refundId = refunded.body.id as string;
    expect((await t.request('GET', `/v2/payments/refunds/${refundId}`)).body.status).toBe('COMPLETED');
    expect((await t.request('GET', `/v2/payments/refunds/${refundId}`)).body.id).toBe(refundId);
  });

  it('never gives an answer older than a change already acknowledged, with reads and writes interleaved', async () => {
    const captures = await Promise.all(Array.from({ length: 8 }, () => capturedPayment(t, '30.00')));
    const reader = async (captureId: string, stop: { done: boolean }) => {
      while (!stop.done) expect((await t.request('GET', `/v2/payments/captures/${captureId}`)).status).toBe(200);
    };
    const stop = { done: false };
    const readers = captures.flatMap(({ captureId }) => [reader(captureId, stop), reader(captureId, stop)]);
    const before = { ...t.server.deps.readCache.stats };
    await Promise.all(
      captures.map(async ({ captureId }) => {
        for (let i = 0; i < 3; i += 1) await t.request('GET', `/v2/payments/captures/${captureId}`);
        expect((await refund(t, captureId, usd('1.00'))).status).toBe(200);
        expect((await t.request('GET', `/v2/payments/captures/${captureId}`)).body.status).toBe('PARTIALLY_REFUNDED');
        expect((await refund(t, captureId, usd('29.00'))).status).toBe(200);
        expect((await t.request('GET', `/v2/payments/captures/${captureId}`)).body.status).toBe('REFUNDED');
      }),
    );
    stop.done = true;
    await Promise.all(readers);
    // The loads did go through kept answers between the writes.
    expect(t.server.deps.readCache.stats.hits).toBeGreaterThan(before.hits);
  });

  it('answers anew after another connection commits to the file', async () => {
    const { captureId } = await capturedPayment(t, '30.00');
    await dispatcherCaughtUp(t);
    const path = `/v2/payments/captures/${captureId}`;
    const kept = (await t.request('GET', path)).body.update_time as string;
    const before = stats();
    expect((await t.request('GET', path)).body.update_time).toBe(kept);
    expect(stats().hits).toBe(before.hits + 1);

    const other = new BetterSqlite3(t.dbPath);
    try {
      other.pragma('busy_timeout = 5000');
      other.prepare('UPDATE captures SET update_time = ? WHERE id = ?').run('2030-01-02T03:04:05Z', captureId);
    } finally {
      other.close();
    }
    const after = await t.request('GET', path);
    expect(after.body.update_time).toBe('2030-01-02T03:04:05Z');
    expect(stats().hits).toBe(before.hits + 1);
  });

  it('keeps an answer per account, per Host and per request target', async () => {
    const { captureId } = await capturedPayment(t, '30.00');
    const path = `/v2/payments/captures/${captureId}`;
    const auth = { authorization: `Bearer ${t.merchant.token}` };
    // Two Host values on the allow-list (http/link-origins.ts): each keeps links on its own host.
    const listening = new URL(t.url).host;
    const localhost = `localhost:${new URL(t.url).port}`;
    const a = await rawGet(`${t.url}${path}`, { ...auth, host: localhost });
    const a2 = await rawGet(`${t.url}${path}`, { ...auth, host: localhost });
    const b = await rawGet(`${t.url}${path}`, { ...auth, host: listening });
    expect(a2.text).toBe(a.text);
    expect(JSON.parse(a.text).links[0].href).toBe(`http://${localhost}${path}`);
    expect(JSON.parse(b.text).links[0].href).toBe(`http://${listening}${path}`);

    const stranger = await t.createMerchant();
    expect((await t.request('GET', path, { token: stranger.token })).status).toBe(404);
    expect((await t.request('GET', path, { token: 'not-a-token' })).status).toBe(401);
    expect((await t.request('GET', path, { token: null })).status).toBe(401);
    expect((await t.request('GET', `${path}?x=1`)).body.id).toBe(captureId);
  });

  it('leaves requests with headers that matter to the route', async () => {
    const { captureId } = await capturedPayment(t, '30.00');
    const path = `/v2/payments/captures/${captureId}`;
    await t.request('GET', path);
    await t.request('GET', path);
    const mocked = await t.request('GET', path, { headers: { 'paypal-mock-response': JSON.stringify({ mock_application_codes: 'INTERNAL_SERVER_ERROR' }) } });
    expect(mocked.status).toBe(500);
    const tooLong = await t.request('GET', path, { headers: { 'service-request-id': 'x'.repeat(10_001) } });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.details[0].field).toBe('Service-Request-Id');
  });
});

describe.skipIf(onPostgres)('kept answers with the request journal on', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ journalSize: 10_000, journalFlushMs: 1 });
  });
  afterAll(async () => {
    await t.close();
  });
  const journaled = async (): Promise<number> =>
    Number((await t.server.deps.db.selectFrom('request_journal').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  it('journaling a request (a write after every answer) leaves the kept answer good', async () => {
    const { captureId } = await capturedPayment(t, '30.00');
    await dispatcherCaughtUp(t);
    const path = `/v2/payments/captures/${captureId}`;
    await t.request('GET', path);
    // The first GET's journal entry is written before the second GET is sent.
    const written = await journaled();
    await t.request('GET', path);
    await waitUntil(async () => (await journaled()) > written, 5_000, 'the journal to write the second GET');
    const before = { ...t.server.deps.readCache.stats };
    const third = await t.request('GET', path);
    expect(third.status).toBe(200);
    expect(t.server.deps.readCache.stats.hits).toBe(before.hits + 1);
    // Positive control: a change through the API still makes the next GET answer anew.
    expect((await refund(t, captureId, usd('1.00'))).status).toBe(200);
    const afterRefund = { ...t.server.deps.readCache.stats };
    await t.request('GET', path);
    expect(t.server.deps.readCache.stats.hits).toBe(afterRefund.hits);
  });
});

describe('kept answers and the clock', () => {
  let t: TestServer;
  let now = Date.parse('2026-03-01T12:00:00Z');
  beforeAll(async () => {
    t = await startTestServer({ memory: true, now: () => now });
  });
  afterAll(async () => {
    await t.close();
  });

  it('an authorization past its expiry is answered as expired, not as kept, though nothing was written', async () => {
    const id = await authorize(t, '20.00');
    // Close to the expiry (29 days), with a token that outlives it; then no write at all.
    now += 29 * 86_400_000 - 3_600_000;
    t.merchant.token = await t.tokenFor(t.merchant.client_id, t.merchant.client_secret);
    await dispatcherCaughtUp(t);
    // No job runs from here unless the test runs it.
    await t.server.deps.scheduler.stop();
    const path = `/v2/payments/authorizations/${id}`;
    expect((await t.request('GET', path)).body.status).toBe('CREATED');
    const before = { ...t.server.deps.readCache.stats };
    expect((await t.request('GET', path)).body.status).toBe('CREATED');
    // Given from memory on SQLite; PostgreSQL keeps no answers (the expiry below must hold either way).
    expect(t.server.deps.readCache.stats.hits).toBe(onPostgres ? before.hits : before.hits + 1);

    now += 2 * 3_600_000;
    const expired = await t.request('GET', path);
    expect(expired.body.status).toBe('VOIDED');
    // Voided on expiry: past its expiration_time (EXPIRED is not one of the API's reasons).
    expect(expired.body.status_details).toBeUndefined();
    expect(Date.parse(expired.body.update_time)).toBeGreaterThanOrEqual(Date.parse(expired.body.expiration_time));
    // The read wrote nothing; the job writes it (positive control), and the answer stays the same.
    const stored = () => t.server.db.selectFrom('authorizations').select('status').where('id', '=', id).executeTakeFirstOrThrow();
    expect((await stored()).status).toBe('CREATED');
    await t.server.deps.scheduler.runAll();
    expect((await stored()).status).toBe('VOIDED');
    expect((await t.request('GET', path)).body).toEqual(expired.body);
  });
});

describe('kept answers are off where they would skip something', () => {
  it.runIf(onPostgres)('on PostgreSQL, where another replica\'s commit would not be noticed: nothing is kept', async () => {
    const t = await startTestServer();
    try {
      const { captureId } = await capturedPayment(t, '10.00');
      for (let i = 0; i < 3; i += 1) expect((await t.request('GET', `/v2/payments/captures/${captureId}`)).status).toBe(200);
      expect(t.server.deps.readCache.stats).toEqual({ hits: 0, misses: 0, stored: 0 });
    } finally {
      await t.close();
    }
  });

  it('with request logging on, every request is logged and none is given from the cache', async () => {
    const lines: string[] = [];
    const t = await startTestServer({ memory: true, logLevel: 'info', logDestination: { write: (line) => lines.push(line) } });
    try {
      const { captureId } = await capturedPayment(t, '10.00');
      lines.length = 0;
      for (let i = 0; i < 3; i += 1) expect((await t.request('GET', `/v2/payments/captures/${captureId}`)).status).toBe(200);
      expect(lines.filter((line) => line.includes('request completed'))).toHaveLength(3);
      expect(t.server.deps.readCache.stats.hits).toBe(0);
    } finally {
      await t.close();
    }
  });

  it('with rate limiting on, every request takes from the bucket', async () => {
    const t = await startTestServer({ memory: true, config: { rateLimitPerSecond: 0.001, rateLimitBurst: 12 } });
    try {
      const { captureId } = await capturedPayment(t, '10.00');
      const statuses: number[] = [];
      for (let i = 0; i < 12; i += 1) statuses.push((await t.request('GET', `/v2/payments/captures/${captureId}`)).status);
      expect(statuses).toContain(429);
      expect(t.server.deps.readCache.stats.hits).toBe(0);
    } finally {
      await t.close();
    }
  });
});
