// Background work with two servers on one database file: this process's server and the built
// `payctl serve` in a child process (two processes, so each waits for SQLite's write lock without
// stopping the other), each with its own scheduler and webhook dispatcher. Every event is delivered
// once, an authorization expires once, a payout batch is paid once, a scheduled invoice is sent
// once; a server killed with deliveries in flight leaves them to the other. On PostgreSQL too
// (PAYCTL_TEST_BACKEND=postgres PAYCTL_TEST_PG=URL).

import { afterEach, describe, expect, it } from 'vitest';
import { httpRequest, startTestServer, type HttpResult, type Merchant, type RequestOptions, type TestServer } from '../helpers/server.js';
import { authorize, capturedPayment } from '../server/payments-helpers.js';
import { emitEvent, startReceiver, subscribe, waitUntil, type Receiver } from '../server/webhooks-support.js';
import { onPostgres } from '../helpers/postgres.js';
import { LEASE_MS } from '../../src/server/notifications/dispatcher.js';
import { DEFAULT_CREDENTIALS, startServe, type ServeProcess } from './support/serve-process.js';

const SIGNING_KEY_SECRET = Buffer.alloc(32, 7).toString('base64url');

let inProcess: TestServer | undefined;
let child: ServeProcess | undefined;
let receiver: Receiver | undefined;

afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
  await child?.kill('SIGTERM');
  child = undefined;
  await inProcess?.close();
  inProcess = undefined;
});

/** The other server, in its child process, spoken to with the in-process server's tokens. */
interface OtherServer {
  process: ServeProcess;
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<HttpResult<T>>;
  advanceClock(seconds: number, token: string): Promise<void>;
}

/**
 * The in-process server on a new database. Requests are made to it before the other server
 * starts: a request's group commit on SQLite is not retried when another process's commit makes
 * it fail, which is not what these tests are about.
 */
async function firstServer(): Promise<TestServer> {
  const { clientId, clientSecret, adminKey } = DEFAULT_CREDENTIALS;
  inProcess = await startTestServer({ clientId, clientSecret, adminKey, signingKeySecret: SIGNING_KEY_SECRET });
  // PAYCTL_TEST_BACKEND=postgres (with PAYCTL_TEST_PG) runs the file on a fresh PostgreSQL database.
  expect(inProcess.server.deps.storage.dialect).toBe(onPostgres ? 'postgres' : 'sqlite');
  return inProcess;
}

/** The second server, in its child process, on the first one's database, spoken to with its tokens. */
async function secondServer(a: TestServer): Promise<OtherServer> {
  // The same signing key secret: on PostgreSQL each server would otherwise keep its own credentials file.
  const started = await startServe({ dbPath: a.dbPath, extraArgs: ['--signing-key-secret', SIGNING_KEY_SECRET] });
  child = started;
  return {
    process: started,
    request: (method, path, options = {}) => httpRequest(`${started.url}${path}`, method, { ...options, defaultToken: a.merchant.token }),
    async advanceClock(seconds, token) {
      const result = await httpRequest(`${started.url}/_payctl/clock`, 'POST', { token, body: { advance_seconds: seconds } });
      if (result.status !== 200) throw new Error(`clock advance failed: ${result.status} ${result.text}`);
    },
  };
}

/** Both servers move the merchant's clock at once (each keeps the offset in memory), and so both run their jobs at once. */
async function advanceBoth(a: TestServer, b: OtherServer, merchant: Merchant, seconds: number): Promise<void> {
  await Promise.all([a.advanceClock(seconds, merchant.token), b.advanceClock(seconds, merchant.token)]);
}

/** How many servers hold delivery leases now. */
const leaseHolders = async (a: TestServer): Promise<number> =>
  (await a.server.db.selectFrom('webhook_deliveries').select('lease_owner').distinct().where('lease_owner', 'is not', null).execute()).length;

const countRows = async (t: TestServer, sqlText: string): Promise<number> => {
  const { sql } = await import('kysely');
  const result = await sql<{ n: bigint }>`${sql.raw(sqlText)}`.execute(t.server.db);
  return Number(result.rows[0]?.n ?? 0n);
};

describe('two servers on one database', () => {
  it('delivers each of 2,000 events once, in order per resource, whichever server wrote or sent it', async () => {
    const a = await firstServer();
    // Answers take a little while, so that neither server can take the whole backlog alone.
    receiver = await startReceiver(() => ({ status: 200, delayMs: 20 }));
    await subscribe(a, receiver.url);
    const b = await secondServer(a);
    const RESOURCES = 200;
    const EVENTS = 2_000;
    // 10 events per resource, while both dispatchers fan out and deliver.
    for (let i = 0; i < EVENTS; i += 1) {
      await emitEvent(a, { eventType: 'PAYMENT.CAPTURE.COMPLETED', resourceType: 'capture', resourceId: `CAP-${i % RESOURCES}` });
    }
    const pending = () => countRows(a, "SELECT count(*) AS n FROM webhook_deliveries WHERE status <> 'DELIVERED'");
    const delivered = () => countRows(a, "SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'DELIVERED'");
    // Positive control: both servers held delivery leases at some point (both were delivering).
    let bothDelivering = false;
    await waitUntil(
      async () => {
        bothDelivering ||= (await leaseHolders(a)) >= 2;
        return (await delivered()) === EVENTS && (await pending()) === 0;
      },
      60_000,
      'every delivery recorded as delivered',
    );
    expect(bothDelivering).toBe(true);
    const attempts = await a.server.db
      .selectFrom('webhook_attempts as t')
      .innerJoin('webhook_deliveries as d', 'd.id', 't.delivery_id')
      .select(['d.event_id', 't.status_code'])
      .execute();
    const seqOf = new Map(
      (await a.server.db.selectFrom('events').select(['id', 'seq']).execute()).map((row) => [row.id, Number(row.seq)]),
    );
    // Both servers stop (their attempts in flight end) before the receiver's count is taken.
    await b.process.kill('SIGTERM');
    await a.server.close();
    // Each event was answered 200 once; an attempt that failed (a timeout on this loaded machine)
    // is retried, so count POSTs against recorded attempts: a server sending without the lease
    // would make a POST that no attempt row records.
    const recorded = new Map<string, number>();
    const succeeded = new Map<string, number>();
    for (const attempt of attempts) {
      recorded.set(attempt.event_id, (recorded.get(attempt.event_id) ?? 0) + 1);
      if (Number(attempt.status_code) === 200) succeeded.set(attempt.event_id, (succeeded.get(attempt.event_id) ?? 0) + 1);
    }
    expect(succeeded.size).toBe(EVENTS);
    expect([...succeeded.values()].every((count) => count === 1)).toBe(true);
    const posted = new Map<string, number>();
    for (const request of receiver.received) {
      const id = (JSON.parse(request.body) as { id: string }).id;
      posted.set(id, (posted.get(id) ?? 0) + 1);
    }
    expect(posted.size).toBe(EVENTS);
    const unrecorded = [...posted].filter(([id, count]) => count > (recorded.get(id) ?? 0));
    expect(unrecorded).toEqual([]);
    // Per resource, the receiver got the events in outbox order.
    const lastSeq = new Map<string, number>();
    for (const request of receiver.received) {
      const body = JSON.parse(request.body) as { id: string; resource: { id: string } };
      const seq = seqOf.get(body.id)!;
      expect(seq, `event ${body.id} of ${body.resource.id}`).toBeGreaterThan(lastSeq.get(body.resource.id) ?? 0);
      lastSeq.set(body.resource.id, seq);
    }
  }, 120_000);

  it('expires an authorization once: one VOIDED event when both servers sweep at once', async () => {
    const a = await firstServer();
    const merchant = await a.createMerchant();
    const ids: string[] = [];
    for (let i = 0; i < 20; i += 1) ids.push(await authorize(a, '10.00', 'USD', { token: merchant.token }));
    const b = await secondServer(a);
    await advanceBoth(a, b, merchant, 30 * 86_400);
    const voided = await a.server.db
      .selectFrom('events')
      .select(['resource_id'])
      .where('account_id', '=', merchant.payer_id)
      .where('event_type', '=', 'PAYMENT.AUTHORIZATION.VOIDED')
      .execute();
    expect(voided.map((row) => row.resource_id).sort()).toEqual([...ids].sort());
    const statuses = await a.server.db.selectFrom('authorizations').select('status').where('id', 'in', ids).execute();
    expect(statuses.map((row) => row.status)).toEqual(ids.map(() => 'VOIDED'));
  }, 60_000);

  it('pays a payout batch once: each item settled, charged and announced once, the batch started and completed once', async () => {
    const a = await firstServer();
    expect((await a.request('POST', '/_payctl/balances', { body: { currency: 'USD', value: '100000.00' } })).status).toBe(200);
    const ITEMS = 15_000;
    // This server's jobs wait until the other server is up: both then process the batch side by side.
    await a.server.deps.scheduler.stop();
    const created = await a.request('POST', '/v1/payments/payouts', {
      body: {
        sender_batch_header: { sender_batch_id: 'replicas-1', recipient_type: 'EMAIL' },
        items: Array.from({ length: ITEMS }, (_, i) => ({ receiver: `r${i}@example.com`, amount: { currency: 'USD', value: '1.00' } })),
      },
    });
    expect(created.status).toBe(201);
    const batchId = created.body.batch_header.payout_batch_id as string;
    await secondServer(a);
    a.server.deps.scheduler.start(50);
    // Both servers' jobs run side by side until the batch is done (each also runs on its own timer).
    const status = async () => (await a.server.db.selectFrom('payout_batches').select('status').where('id', '=', batchId).executeTakeFirstOrThrow()).status;
    await waitUntil(async () => (await status()) === 'SUCCESS', 60_000, 'the batch to finish');
    expect(await status()).toBe('SUCCESS');
    const batchEvents = await a.server.db.selectFrom('events').select('event_type').where('resource_id', '=', batchId).orderBy('seq').execute();
    expect(batchEvents.map((row) => row.event_type)).toEqual(['PAYMENT.PAYOUTSBATCH.PROCESSING', 'PAYMENT.PAYOUTSBATCH.SUCCESS']);
    expect(await countRows(a, `SELECT count(*) AS n FROM payout_items WHERE batch_id = '${batchId}' AND status = 'UNCLAIMED'`)).toBe(ITEMS);
    expect(await countRows(a, `SELECT count(*) AS n FROM events WHERE resource_type = 'payouts_item'`)).toBe(ITEMS);
    expect(await countRows(a, "SELECT count(DISTINCT resource_id) AS n FROM events WHERE resource_type = 'payouts_item'")).toBe(ITEMS);
    expect(await countRows(a, "SELECT count(*) AS n FROM balance_movements WHERE kind = 'PAYOUT'")).toBe(ITEMS);
    expect(await countRows(a, "SELECT count(DISTINCT reference_id) AS n FROM balance_movements WHERE kind = 'PAYOUT'")).toBe(ITEMS);
  }, 120_000);

  it('sends a scheduled invoice once when both servers reach its date at once', async () => {
    const a = await firstServer();
    const merchant = await a.createMerchant();
    const clock = (await a.request('GET', '/_payctl/clock', { token: merchant.token })).body;
    const today = (clock.now as string).slice(0, 10);
    const inTwoDays = new Date(Date.parse(`${today}T00:00:00Z`) + 2 * 86_400_000).toISOString().slice(0, 10);
    const ids: string[] = [];
    for (let i = 0; i < 10; i += 1) {
      const created = await a.request('POST', '/v2/invoicing/invoices', {
        token: merchant.token,
        body: {
          detail: { currency_code: 'USD', invoice_date: inTwoDays },
          primary_recipients: [{ billing_info: { email_address: 'payer@example.com' } }],
          items: [{ name: 'Thing', quantity: '1', unit_amount: { currency_code: 'USD', value: '9.99' } }],
        },
      });
      expect(created.status).toBe(201);
      const id = created.body.id as string;
      expect((await a.request('POST', `/v2/invoicing/invoices/${id}/send`, { token: merchant.token, body: {} })).status).toBe(202);
      ids.push(id);
    }
    const b = await secondServer(a);
    await advanceBoth(a, b, merchant, 3 * 86_400);
    // One e-mail to the payer per invoice: a second send would have recorded a second one.
    const messages = await a.server.db.selectFrom('email_outbox').select(['invoice_id', 'to_address']).where('invoice_id', 'in', ids).execute();
    expect(messages.map((row) => row.invoice_id).sort()).toEqual([...ids].sort());
    expect(new Set(messages.map((row) => row.to_address))).toEqual(new Set(['payer@example.com']));
    const statuses = await a.server.db.selectFrom('invoices').select('status').where('id', 'in', ids).execute();
    expect(statuses.map((row) => row.status)).toEqual(ids.map(() => 'SENT'));
  }, 60_000);

  it('settles a passed dispute deadline once: one resolution and one reversal each when both servers sweep at once', async () => {
    const a = await firstServer();
    const disputes: Array<{ id: string; captureId: string }> = [];
    for (let i = 0; i < 10; i += 1) {
      const { captureId } = await capturedPayment(a, '20.00');
      const opened = await a.request('POST', '/_payctl/disputes', { body: { disputed_transaction_id: captureId, reason: 'MERCHANDISE_OR_SERVICE_NOT_RECEIVED' } });
      expect(opened.status, opened.text).toBe(201);
      disputes.push({ id: opened.body.dispute_id as string, captureId });
    }
    const b = await secondServer(a);
    // The seller never answers: after 10 days each dispute is resolved for the buyer, and the payment reversed.
    await advanceBoth(a, b, a.merchant, 11 * 86_400);
    const ids = disputes.map((dispute) => dispute.id);
    const resolved = await a.server.db.selectFrom('events').select('resource_id').where('event_type', '=', 'CUSTOMER.DISPUTE.RESOLVED').where('resource_id', 'in', ids).execute();
    expect(resolved.map((row) => row.resource_id).sort()).toEqual([...ids].sort());
    const reversals = await a.server.db.selectFrom('balance_movements').select('reference_id').where('kind', '=', 'REVERSAL').execute();
    expect(reversals).toHaveLength(ids.length);
    expect(new Set(reversals.map((row) => row.reference_id)).size).toBe(ids.length);
  }, 60_000);

  it('a server killed (SIGKILL) with deliveries leased: the other delivers them once the leases run out', async () => {
    const a = await firstServer();
    // Slow answers keep attempts in flight and leased rows queued on both servers.
    receiver = await startReceiver(() => ({ status: 200, delayMs: 100 }));
    await subscribe(a, receiver.url);
    const EVENTS = 600;
    for (let i = 0; i < EVENTS; i += 1) {
      await emitEvent(a, { eventType: 'PAYMENT.CAPTURE.COMPLETED', resourceType: 'capture', resourceId: `CAP-${i}` });
    }
    const b = await secondServer(a);
    await waitUntil(async () => (await leaseHolders(a)) >= 2, 30_000, 'both servers holding delivery leases');
    await b.process.kill('SIGKILL');
    const killedAt = Date.now();
    const left = async () => Number((await a.server.db.selectFrom('webhook_deliveries').select((eb) => eb.fn.countAll<bigint>().as('n')).where('status', '<>', 'DELIVERED').executeTakeFirstOrThrow()).n);
    expect(await left(), 'deliveries the killed server had leased are still waiting').toBeGreaterThan(0);
    await waitUntil(async () => (await left()) === 0, 60_000, 'every delivery made by the surviving server');
    expect(Date.now() - killedAt, 'taken over only once the leases ran out').toBeGreaterThan(LEASE_MS / 2);
    const posted = new Set(receiver.received.map((request) => (JSON.parse(request.body) as { id: string }).id));
    expect(posted.size).toBe(EVENTS);
  }, 120_000);
});
