// Replicas: three built `payctl serve` processes on one PostgreSQL database behave as one server.
// Requests are spread round-robin over them, as a load balancer would. Limits hold exactly (200
// captures of 1.00 on a 100.00 authorization), a request id sent to two replicas at once takes
// effect once and both answer alike, a write acknowledged by one replica is read on another,
// background work (webhook deliveries, payout batches) runs once whichever replica takes it, and a
// replica SIGKILLed under load leaves nothing lost: the others finish its work.
//
// PostgreSQL only: PAYCTL_TEST_PG names a server (scripts/pg-cluster.sh); this file makes its own
// database there. Without it the file is skipped, saying why.

import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/wait.js';
import { openInspector, type DbInspector } from './support/db-inspect.js';
import { loadClient, tokenFor, type Answer, type LoadClient, type Outcome } from './support/http.js';
import { MixedLoad, centsOf, seededRandom, usdValue } from './support/mixed-load.js';
import { PG_SKIP_REASON, TEST_PG, createTestDatabase, pgServeArgs, type TestDatabase } from './support/pg-database.js';
import { startEventReceiver } from './support/receiver.js';
import { balancedClient, startReplicas, type BalancedClient } from './support/replicas.js';
import { tempDir, type ServeProcess } from './support/serve-process.js';
import { committedRequestIds, effectOf, exactlyOnceProblems, resendTwice, verifyAcknowledged, type Effect } from './support/write-checks.js';

const REPLICAS = 3;
const SEED = Number(process.env.PAYCTL_REPLICAS_SEED ?? Math.floor(Math.random() * 2 ** 31));
const random = seededRandom(SEED);
const FULL = { prefer: 'return=representation' };
const CARD = { card: { number: '4111111111111111', expiry: '2030-12' } };
/** Bound on waiting for background work (deliveries, payouts), leases of a killed replica included. */
const BACKGROUND_WAIT_MS = 120_000;

if (!TEST_PG) console.log(`test/reliability/replicas.test.ts: ${PG_SKIP_REASON}`);

interface Merchant {
  payerId: string;
  clientId: string;
  clientSecret: string;
  token: string;
}

const answered = (outcome: Outcome): Answer => {
  if (outcome.lost) throw new Error(`no answer: ${outcome.error}`);
  return outcome;
};
const issueOf = (body: any): string => body?.details?.[0]?.issue ?? body?.name ?? 'none';
const tally = (values: readonly string[]) => Object.fromEntries([...new Set(values)].sort().map((value) => [value, values.filter((v) => v === value).length]));
const usd = (cents: number) => ({ currency_code: 'USD', value: usdValue(cents) });
const headers = () => ({ 'service-request-id': randomUUID(), ...FULL });
/** 2% of a payout item, rounded half-up to the cent, capped at 20.00 (src/server/payouts/fees.ts). */
const payoutFee = (cents: number) => Math.min(2_000, Math.floor((cents * 200 + 5_000) / 10_000));

describe.skipIf(!TEST_PG)('replicas on one PostgreSQL database', () => {
  let database: TestDatabase;
  /** Holds the credentials file the replicas share. */
  let dir: string | undefined;
  let replicas: ServeProcess[] = [];
  /** One client per replica, for requests aimed at one of them. */
  let direct: LoadClient[] = [];
  let db: DbInspector;
  const summary: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase('replicas');
    dir = tempDir('replicas');
    const started = performance.now();
    replicas = await startReplicas({ db: database.url, count: REPLICAS, extraArgs: pgServeArgs(dir) });
    summary.push(`${REPLICAS} replicas started in ${Math.round(performance.now() - started)} ms (first alone, then the others together) on ${database.name}`);
    direct = replicas.map((replica) => loadClient(replica.url, { connections: 8 }));
    db = await openInspector(database.url);
  });

  afterAll(async () => {
    // What each replica logged (warnings and errors), for a failure's evidence.
    const logs = replicas.map((replica, index) => ({ index, log: replica.stderr().trim() })).filter((entry) => entry.log !== '');
    const logLines = logs.flatMap(({ index, log }) => [`replica ${index + 1} log (last 3 KB):`, ...log.slice(-3_000).split('\n').map((line) => `  ${line.slice(0, 400)}`)]);
    console.log(['', '=== REPLICAS SUMMARY (test/reliability/replicas.test.ts) ===', `seed ${SEED} (PAYCTL_REPLICAS_SEED)`, ...summary, ...logLines, ''].join('\n'));
    await Promise.all(direct.map((client) => client.close()));
    await db?.close();
    await Promise.all(replicas.map((replica) => replica.kill('SIGTERM')));
    await database?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const adminKey = () => replicas[0]!.credentials.adminKey;
  const spread = (connectionsPerReplica: number, timeoutMs?: number): BalancedClient =>
    balancedClient(
      replicas.filter((replica) => replica.child.exitCode === null && replica.child.signalCode === null).map((replica) => replica.url),
      { connectionsPerReplica, ...(timeoutMs ? { timeoutMs } : {}) },
    );

  /** A new merchant, made on replica 1; its token is issued by replica 2 (every replica takes it). */
  async function newMerchant(label: string): Promise<Merchant> {
    const created = await direct[0]!.must('POST', '/_payctl/accounts', { token: adminKey(), body: { email: `${label}-${randomUUID()}@example.com` } });
    expect(created.status, created.text).toBe(201);
    const token = await tokenFor(direct[1]!, created.body.client_id, created.body.client_secret);
    return { payerId: created.body.payer_id, clientId: created.body.client_id, clientSecret: created.body.client_secret, token };
  }

  async function authorize(client: LoadClient, token: string, cents: number): Promise<string> {
    const order = await client.must('POST', '/v2/checkout/orders', {
      token,
      headers: headers(),
      body: { intent: 'AUTHORIZE', purchase_units: [{ amount: usd(cents) }], payment_source: CARD },
    });
    expect(order.status, order.text).toBe(201);
    const authorized = await client.must('POST', `/v2/checkout/orders/${order.body.id}/authorize`, { token, headers: headers(), body: {} });
    expect(authorized.status, authorized.text).toBe(201);
    return authorized.body.purchase_units[0].payments.authorizations[0].id as string;
  }

  async function subscribe(client: LoadClient, token: string, url: string): Promise<string> {
    const hook = await client.must('POST', '/v1/notifications/webhooks', { token, body: { url, event_types: [{ name: '*' }] } });
    expect(hook.status, hook.text).toBe(201);
    return hook.body.id as string;
  }

  /** The account's audit (bearer), or the whole database's (admin key); returns what is wrong (empty: clean). */
  async function auditProblems(client: LoadClient, token: string): Promise<string[]> {
    const audit = await client.must('GET', '/_payctl/audit', { token });
    if (audit.status !== 200) return [`GET /_payctl/audit answered ${audit.status}: ${audit.text.slice(0, 300)}`];
    const checks = audit.body.checks as Array<{ name: string; violations: unknown[] }>;
    if (checks.length < 5) return [`the audit ran only ${checks.length} checks: ${audit.text.slice(0, 300)}`];
    // With the admin key it covers the whole database and PostgreSQL's own checks.
    const missing = token === adminKey() ? ['postgres-indexes-valid', 'foreign-keys'].filter((name) => !checks.some((check) => check.name === name)) : [];
    if (missing.length > 0) return [`the whole-database audit did not run ${missing.join(', ')}`];
    const failing = checks.filter((check) => check.violations.length > 0).map((check) => `${check.name}: ${JSON.stringify(check.violations.slice(0, 3))}`);
    if (audit.body.ok !== true && failing.length === 0) failing.push(`audit not ok: ${audit.text.slice(0, 500)}`);
    return failing;
  }

  /** Polls `probe` (a read) until it holds, at most `timeoutMs`; how long that took. */
  async function eventually(what: string, timeoutMs: number, probe: () => Promise<boolean>): Promise<number> {
    const started = performance.now();
    await waitFor(probe, { timeoutMs, intervalMs: 100, what });
    return performance.now() - started;
  }

  /** One capture request, the same request id, sent to two replicas at once (the `index`th and the next): both answers. */
  function captureOnTwoReplicas(index: number, token: string, auth: string, requestId: string, body: Record<string, unknown>): Promise<Answer[]> {
    return Promise.all(
      [index % REPLICAS, (index + 1) % REPLICAS].map(async (replica) =>
        answered(
          await direct[replica]!.call('POST', `/v2/payments/authorizations/${auth}/capture`, {
            token,
            headers: { 'service-request-id': requestId, ...FULL },
            body,
          }),
        ),
      ),
    );
  }

  /** The pairs whose two answers differ, each shown as a soft failure. */
  function pairsAnsweredDifferently(pairs: readonly Answer[][]): Answer[][] {
    const differing = pairs.filter(([first, second]) => first!.status !== second!.status || !isDeepStrictEqual(first!.body, second!.body));
    for (const [first, second] of differing) expect.soft(second!.text, `pair answered ${first!.status} then ${second!.status}`).toBe(first!.text);
    return differing;
  }

  it('200 concurrent 1.00 captures of a 100.00 authorization over the replicas: exactly 100 succeed', async () => {
    const merchant = await newMerchant('captures');
    const client = spread(70);
    try {
      const auth = await authorize(client, merchant.token, 10_000);
      const started = performance.now();
      const outcomes = await Promise.all(
        Array.from({ length: 200 }, () =>
          client.call('POST', `/v2/payments/authorizations/${auth}/capture`, {
            token: merchant.token,
            headers: headers(),
            body: { amount: usd(100), final_capture: false },
          }),
        ),
      );
      const elapsed = performance.now() - started;
      const answers = outcomes.map(answered);
      const statuses = tally(answers.map((answer) => `${answer.status} ${answer.status === 200 ? answer.body.status : issueOf(answer.body)}`));
      summary.push(`captures: 200 x 1.00 on one 100.00 authorization over ${REPLICAS} replicas (${client.sent.join('/')} sent): ${JSON.stringify(statuses)} in ${Math.round(elapsed)} ms`);
      const succeeded = answers.filter((answer) => answer.status === 200);
      const refused = answers.filter((answer) => answer.status !== 200);
      expect(statuses).toEqual({ '200 COMPLETED': 100, '422 AUTHORIZATION_ALREADY_CAPTURED': 100 });
      expect(new Set(succeeded.map((answer) => answer.body.id)).size).toBe(100);
      expect(refused.every((answer) => answer.body.name === 'UNPROCESSABLE_ENTITY')).toBe(true);

      // Every replica reads the authorization as fully captured.
      for (const replica of direct) {
        const got = await replica.must('GET', `/v2/payments/authorizations/${auth}`, { token: merchant.token });
        expect(got.body.status).toBe('CAPTURED');
      }
      const [row] = await db.all<{ captured_minor: number; capture_count: number }>('SELECT captured_minor, capture_count FROM authorizations WHERE id = ?', auth);
      expect(row).toEqual({ captured_minor: 10_000, capture_count: 100 });
      const stored = await db.column<string>('SELECT id FROM captures WHERE authorization_id = ?', auth);
      expect(new Set(stored)).toEqual(new Set(succeeded.map((answer) => answer.body.id)));
      const [movements] = await db.column<number>("SELECT COUNT(*) FROM balance_movements WHERE kind = 'CAPTURE' AND reference_id IN (SELECT id FROM captures WHERE authorization_id = ?)", auth);
      expect(movements).toBe(100);
      const [events] = await db.column<number>("SELECT COUNT(*) FROM events WHERE event_type = 'PAYMENT.CAPTURE.COMPLETED' AND resource_id IN (SELECT id FROM captures WHERE authorization_id = ?)", auth);
      expect(events).toBe(100);

      // The balance holds the 100 captures' net amounts, on every replica.
      const net = succeeded.reduce((sum, answer) => sum + centsOf(answer.body.seller_receivable_breakdown.net_amount.value as string), 0);
      for (const replica of direct) {
        const balances = await replica.must('GET', '/_payctl/balances', { token: merchant.token });
        expect(balances.body.balances, `balance on ${replica.url}`).toEqual([{ currency: 'USD', value: usdValue(net) }]);
      }
      expect(await auditProblems(client, merchant.token)).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('the same request id sent to two replicas at once, 20 times: 20 captures, each pair answered alike', async () => {
    const merchant = await newMerchant('same-id');
    const auth = await authorize(direct[0]!, merchant.token, 10_000);
    const ids = Array.from({ length: 20 }, () => randomUUID());
    const started = performance.now();
    const pairs = await Promise.all(
      ids.map((requestId, index) => captureOnTwoReplicas(index, merchant.token, auth, requestId, { amount: usd(100), final_capture: false })),
    );
    const elapsed = performance.now() - started;
    const differing = pairsAnsweredDifferently(pairs);
    summary.push(
      `same request id: 20 ids each sent to two replicas at once: statuses ${JSON.stringify(tally(pairs.flat().map((answer) => String(answer.status))))}, ` +
        `pairs answered differently ${differing.length}, in ${Math.round(elapsed)} ms`,
    );
    expect(differing).toHaveLength(0);
    expect(tally(pairs.flat().map((answer) => String(answer.status)))).toEqual({ '200': 40 });
    const answeredIds = new Set(pairs.map(([first]) => first!.body.id as string));
    expect(answeredIds.size).toBe(20);
    expect(new Set(await db.column<string>('SELECT id FROM captures WHERE authorization_id = ?', auth))).toEqual(answeredIds);
    const [row] = await db.all<{ captured_minor: number; capture_count: number }>('SELECT captured_minor, capture_count FROM authorizations WHERE id = ?', auth);
    expect(row).toEqual({ captured_minor: 2_000, capture_count: 20 });
    const [events] = await db.column<number>("SELECT COUNT(*) FROM events WHERE event_type = 'PAYMENT.CAPTURE.COMPLETED' AND resource_id IN (SELECT id FROM captures WHERE authorization_id = ?)", auth);
    expect(events).toBe(20);
    const [keys] = await db.column<number>('SELECT COUNT(*) FROM idempotency_keys WHERE account_id = ? AND request_key IN (' + ids.map(() => '?').join(',') + ')', merchant.payerId, ...ids);
    expect(keys).toBe(20);
    expect(await auditProblems(direct[2]!, merchant.token)).toEqual([]);
  });

  it('the same request id for a whole capture sent to two replicas at once, 20 times: one capture each, each pair answered alike', async () => {
    // The second of a pair finds the authorization captured by the first (its row lock waited for
    // it): a refusal of its own unless it answers with the first's stored answer.
    const merchant = await newMerchant('same-id-whole');
    // Made one at a time: the set-up is not what is tested.
    const auths: string[] = [];
    for (let index = 0; index < 20; index++) auths.push(await authorize(direct[index % REPLICAS]!, merchant.token, 100));
    const pairs = await Promise.all(
      auths.map((auth, index) => captureOnTwoReplicas(index, merchant.token, auth, randomUUID(), { amount: usd(100), final_capture: true })),
    );
    const differing = pairsAnsweredDifferently(pairs);
    summary.push(`same request id, whole captures: statuses ${JSON.stringify(tally(pairs.flat().map((answer) => `${answer.status} ${answer.status === 200 ? '' : issueOf(answer.body)}`.trim())))}, pairs answered differently ${differing.length}`);
    expect(differing).toHaveLength(0);
    expect(tally(pairs.flat().map((answer) => String(answer.status)))).toEqual({ '200': 40 });
    for (const [index, auth] of auths.entries()) {
      expect(await db.column<string>('SELECT id FROM captures WHERE authorization_id = ?', auth)).toEqual([pairs[index]![0]!.body.id]);
    }
    expect(await auditProblems(direct[1]!, merchant.token)).toEqual([]);
  });

  describe('read-after-write: a write acknowledged by one replica is read on another', () => {
    it('a token issued by one replica works on the others', async () => {
      const merchant = await newMerchant('token');
      for (const [issuer, user] of [[0, 1], [1, 2], [2, 0]] as const) {
        const token = await tokenFor(direct[issuer]!, merchant.clientId, merchant.clientSecret);
        const whoami = await direct[user]!.must('GET', '/_payctl/whoami', { token });
        expect(whoami.status, `token from replica ${issuer + 1} on replica ${user + 1}: ${whoami.text}`).toBe(200);
        expect(whoami.body.payer_id).toBe(merchant.payerId);
      }
    });

    it('captures, refunds and balances', async () => {
      const merchant = await newMerchant('raw-payments');
      const [one, two, three] = direct as [LoadClient, LoadClient, LoadClient];
      const auth = await authorize(one, merchant.token, 10_000);
      // Replica 2 reads (and may keep) each resource before replica 1 changes it.
      expect((await two.must('GET', `/v2/payments/authorizations/${auth}`, { token: merchant.token })).body.status).toBe('CREATED');
      const capture = await one.must('POST', `/v2/payments/authorizations/${auth}/capture`, { token: merchant.token, headers: headers(), body: { amount: usd(3_000), final_capture: false } });
      expect(capture.status, capture.text).toBe(200);
      expect((await two.must('GET', `/v2/payments/authorizations/${auth}`, { token: merchant.token })).body.status).toBe('PARTIALLY_CAPTURED');
      const seen = await two.must('GET', `/v2/payments/captures/${capture.body.id}`, { token: merchant.token });
      expect(seen.status, seen.text).toBe(200);
      expect(seen.body.amount.value).toBe('30.00');
      expect(seen.body.status).toBe('COMPLETED');

      const refund = await one.must('POST', `/v2/payments/captures/${capture.body.id}/refund`, { token: merchant.token, headers: headers(), body: { amount: usd(1_000) } });
      expect(refund.status, refund.text).toBe(200);
      expect((await two.must('GET', `/v2/payments/refunds/${refund.body.id}`, { token: merchant.token })).body.amount?.value).toBe('10.00');
      expect((await two.must('GET', `/v2/payments/captures/${capture.body.id}`, { token: merchant.token })).body.status).toBe('PARTIALLY_REFUNDED');

      const before = (await three.must('GET', '/_payctl/balances', { token: merchant.token })).body.balances as Array<{ value: string }>;
      const topUp = await one.must('POST', '/_payctl/balances', { token: merchant.token, body: { currency: 'USD', value: '12.34' } });
      expect(topUp.status, topUp.text).toBe(200);
      const after = (await three.must('GET', '/_payctl/balances', { token: merchant.token })).body.balances as Array<{ value: string }>;
      expect(centsOf(after[0]!.value)).toBe(centsOf(before[0]!.value) + 1_234);
    });

    it('an invoice created on one replica is on the list page of another, right away, five times over', async () => {
      const merchant = await newMerchant('invoices');
      const list = async (client: LoadClient) => {
        const page = await client.must('GET', '/v2/invoicing/invoices?total_required=true&page_size=100', { token: merchant.token });
        expect(page.status, page.text).toBe(200);
        return { total: page.body.total_items as number, ids: (page.body.items as Array<{ id: string }>).map((item) => item.id) };
      };
      const made: string[] = [];
      for (let round = 0; round < 5; round += 1) {
        const writer = direct[round % REPLICAS]!;
        const reader = direct[(round + 1) % REPLICAS]!;
        expect((await list(reader)).total).toBe(made.length);
        const created = await writer.must('POST', '/v2/invoicing/invoices', {
          token: merchant.token,
          headers: headers(),
          body: {
            detail: { currency_code: 'USD' },
            primary_recipients: [{ billing_info: { email_address: 'buyer@example.com' } }],
            items: [{ name: 'Widget', quantity: '1', unit_amount: usd(500 + round) }],
          },
        });
        expect(created.status, created.text).toBe(201);
        made.push(created.body.id as string);
        const after = await list(reader);
        expect(after.total, `round ${round}: list on replica ${((round + 1) % REPLICAS) + 1}`).toBe(made.length);
        expect([...after.ids].sort()).toEqual([...made].sort());
      }
      // A deletion too.
      expect((await direct[0]!.must('DELETE', `/v2/invoicing/invoices/${made[0]}`, { token: merchant.token })).status).toBe(204);
      expect((await list(direct[1]!)).ids).not.toContain(made[0]);
    });

    it('a clock advance, then a sandbox reset, on one replica are seen by the others', async () => {
      const merchant = await newMerchant('clock');
      const [one, two, three] = direct as [LoadClient, LoadClient, LoadClient];
      expect((await two.must('GET', '/_payctl/clock', { token: merchant.token })).body.offset_seconds).toBe(0);
      const advanced = await one.must('POST', '/_payctl/clock', { token: merchant.token, body: { advance_seconds: 86_400 } });
      expect(advanced.status, advanced.text).toBe(200);
      expect(advanced.body.offset_seconds).toBe(86_400);
      for (const reader of [two, three]) {
        const clock = await reader.must('GET', '/_payctl/clock', { token: merchant.token });
        expect(clock.body.offset_seconds).toBe(86_400);
      }
      // Resources made on another replica carry the advanced time.
      const order = await two.must('POST', '/v2/checkout/orders', {
        token: merchant.token,
        headers: headers(),
        body: { intent: 'CAPTURE', purchase_units: [{ amount: usd(1_000) }] },
      });
      expect(order.status, order.text).toBe(201);
      expect(Date.parse(order.body.create_time as string)).toBeGreaterThan(Date.now() + 86_400_000 - 600_000);
      expect((await three.must('GET', `/v2/checkout/orders/${order.body.id}`, { token: merchant.token })).status).toBe(200);

      const reset = await one.must('POST', '/_payctl/reset', { token: merchant.token });
      expect(reset.status, reset.text).toBe(200);
      for (const reader of [two, three]) {
        const gone = await reader.must('GET', `/v2/checkout/orders/${order.body.id}`, { token: merchant.token });
        expect(gone.status, `order after a reset on replica 1, read on ${reader.url}`).toBe(404);
        expect((await reader.must('GET', '/_payctl/clock', { token: merchant.token })).body.offset_seconds).toBe(0);
      }
    });
  });

  // Was known failing under load: a replica's 20 s lease could run out between an attempt and its
  // record, and another replica then delivered the event again (156 and 4,845 of 10,000 received
  // twice at load average 11-16). Leases are now short and renewed until the record (dispatcher.ts).
  it('10,000 webhook events with three replicas: each delivered, none twice', async () => {
    const receiver = await startEventReceiver();
    const client = spread(4);
    try {
      const merchant = await newMerchant('events');
      await subscribe(client, merchant.token, `${receiver.url}/events`);
      // Two payout batches of 4,998 unclaimed items: 9,996 item events and each batch's PROCESSING
      // and SUCCESS, 10,000 in all, made by the payout job on whichever replica takes each batch.
      const topUp = await client.must('POST', '/_payctl/balances', { token: merchant.token, body: { currency: 'USD', value: '20000.00' } });
      expect(topUp.status, topUp.text).toBe(200);
      const started = performance.now();
      const batches: string[] = [];
      for (let batch = 0; batch < 2; batch += 1) {
        const created = await client.must('POST', '/v1/payments/payouts', {
          token: merchant.token,
          headers: { 'service-request-id': randomUUID() },
          body: {
            sender_batch_header: { sender_batch_id: `events-${batch}-${randomUUID()}`, email_subject: 'Replica events' },
            items: Array.from({ length: 4_998 }, (_, i) => ({
              recipient_type: 'EMAIL',
              amount: { value: '1.00', currency: 'USD' },
              receiver: `events-${batch}-${i}@example.com`,
              sender_item_id: `item-${batch}-${i}`,
            })),
          },
        });
        expect(created.status, created.text.slice(0, 500)).toBe(201);
        batches.push(created.body.batch_header.payout_batch_id as string);
      }
      const eventCount = async () => (await db.column<number>('SELECT COUNT(*) FROM events WHERE account_id = ?', merchant.payerId))[0];
      await eventually('both batches settled', BACKGROUND_WAIT_MS, async () => (await eventCount())! >= 10_000);
      const createdMs = performance.now() - started;
      const eventIds = new Set(await db.column<string>('SELECT id FROM events WHERE account_id = ?', merchant.payerId));
      const repeated = await db.all<{ event_type: string; resource_id: string; n: number }>(
        'SELECT event_type, resource_id, COUNT(*) AS n FROM events WHERE account_id = ? GROUP BY event_type, resource_id HAVING COUNT(*) > 1',
        merchant.payerId,
      );
      expect(repeated, 'events written more than once for one resource').toEqual([]);
      expect(eventIds.size).toBe(10_000);
      await receiver.until(() => receiver.received.size >= eventIds.size && [...eventIds].every((id) => receiver.received.has(id)), BACKGROUND_WAIT_MS, 'every event received');
      const receivedMs = performance.now() - started;
      // Every delivery is finished (DELIVERED, one attempt each), so none can come again later.
      await eventually('every delivery recorded', BACKGROUND_WAIT_MS, async () => {
        const [open] = await db.column<number>("SELECT COUNT(*) FROM webhook_deliveries WHERE account_id = ? AND status <> 'DELIVERED'", merchant.payerId);
        return open === 0;
      });
      const [deliveries] = await db.column<number>('SELECT COUNT(*) FROM webhook_deliveries WHERE account_id = ?', merchant.payerId);
      const [attempts] = await db.column<number>('SELECT COUNT(*) FROM webhook_attempts WHERE account_id = ?', merchant.payerId);
      const twice = [...receiver.received].filter(([id, count]) => eventIds.has(id) && count > 1);
      const strays = [...receiver.received.keys()].filter((id) => !eventIds.has(id));
      summary.push(
        `webhooks: 10,000 events (2 payout batches of 4,998 items) made in ${Math.round(createdMs)} ms, all received after ${Math.round(receivedMs)} ms; ` +
          `deliveries ${deliveries}, attempts ${attempts}, received twice ${twice.length}, unknown ids ${strays.length}, malformed ${receiver.malformed}`,
      );
      expect(twice.slice(0, 5)).toEqual([]);
      expect(strays).toEqual([]);
      expect(receiver.malformed).toBe(0);
      expect(deliveries).toBe(10_000);
      expect(attempts).toBe(10_000);
      for (const batch of batches) expect((await client.must('GET', `/v1/payments/payouts/${batch}?page_size=1`, { token: merchant.token })).body.batch_header.batch_status).toBe('SUCCESS');
    } finally {
      await client.close();
      await receiver.close();
    }
  });

  it('one payout batch processed once: each item paid once, one set of events, the balance right', async () => {
    const receiver = await startEventReceiver();
    const client = spread(4);
    try {
      const sender = await newMerchant('payout-sender');
      const payee = await newMerchant('payout-payee');
      await subscribe(client, sender.token, `${receiver.url}/payouts`);
      const topUp = await client.must('POST', '/_payctl/balances', { token: sender.token, body: { currency: 'USD', value: '50000.00' } });
      expect(topUp.status, topUp.text).toBe(200);
      // 2,500 items (three chunks): even positions to the payee's account (SUCCESS), odd ones to an
      // unknown e-mail address (UNCLAIMED); both are charged with their fee.
      const cents = Array.from({ length: 2_500 }, () => 100 + Math.floor(random() * 1_900));
      const created = await client.must('POST', '/v1/payments/payouts', {
        token: sender.token,
        headers: { 'service-request-id': randomUUID() },
        body: {
          sender_batch_header: { sender_batch_id: `once-${randomUUID()}`, email_subject: 'Replica payout' },
          items: cents.map((value, i) =>
            i % 2 === 0
              ? { recipient_type: 'PAYPAL_ID', receiver: payee.payerId, amount: { value: usdValue(value), currency: 'USD' }, sender_item_id: `item-${i}` }
              : { recipient_type: 'EMAIL', receiver: `unclaimed-${i}@example.com`, amount: { value: usdValue(value), currency: 'USD' }, sender_item_id: `item-${i}` },
          ),
        },
      });
      expect(created.status, created.text.slice(0, 500)).toBe(201);
      const batchId = created.body.batch_header.payout_batch_id as string;
      const waited = await eventually('batch SUCCESS', BACKGROUND_WAIT_MS, async () => {
        const got = await client.must('GET', `/v1/payments/payouts/${batchId}?page_size=1`, { token: sender.token });
        return got.body.batch_header.batch_status === 'SUCCESS';
      });

      const items = await db.all<{ id: string; position: number; status: string; amount_minor: number; fee_minor: number }>(
        'SELECT id, position, status, amount_minor, fee_minor FROM payout_items WHERE batch_id = ? ORDER BY position',
        batchId,
      );
      expect(items).toHaveLength(2_500);
      expect(tally(items.map((item) => item.status))).toEqual({ SUCCESS: 1_250, UNCLAIMED: 1_250 });
      expect(items.every((item) => item.status === (item.position % 2 === 0 ? 'SUCCESS' : 'UNCLAIMED'))).toBe(true);
      expect(items.map((item) => item.fee_minor)).toEqual(cents.map(payoutFee));

      // One PAYOUT movement (and one PAYOUT_FEE) per item, none twice.
      const movements = await db.all<{ kind: string; reference_id: string; n: number }>(
        "SELECT kind, reference_id, COUNT(*) AS n FROM balance_movements WHERE account_id = ? AND kind IN ('PAYOUT', 'PAYOUT_FEE') GROUP BY kind, reference_id",
        sender.payerId,
      );
      expect(movements.filter((movement) => movement.n !== 1)).toEqual([]);
      expect(movements.filter((movement) => movement.kind === 'PAYOUT')).toHaveLength(2_500);
      expect(movements.filter((movement) => movement.kind === 'PAYOUT_FEE')).toHaveLength(items.filter((item) => item.fee_minor > 0).length);

      // One event per item, and the batch's PROCESSING and SUCCESS once each.
      const events = await db.all<{ event_type: string; resource_id: string; n: number }>(
        'SELECT event_type, resource_id, COUNT(*) AS n FROM events WHERE account_id = ? GROUP BY event_type, resource_id',
        sender.payerId,
      );
      expect(events.filter((event) => event.n !== 1)).toEqual([]);
      expect(tally(events.map((event) => event.event_type))).toEqual({
        'PAYMENT.PAYOUTS-ITEM.SUCCEEDED': 1_250,
        'PAYMENT.PAYOUTS-ITEM.UNCLAIMED': 1_250,
        'PAYMENT.PAYOUTSBATCH.PROCESSING': 1,
        'PAYMENT.PAYOUTSBATCH.SUCCESS': 1,
      });
      const eventIds = await db.column<string>('SELECT id FROM events WHERE account_id = ?', sender.payerId);
      await receiver.until(() => receiver.received.size >= eventIds.length && eventIds.every((id) => receiver.received.has(id)), BACKGROUND_WAIT_MS, 'every payout event received');

      const spent = cents.reduce((sum, value) => sum + value + payoutFee(value), 0);
      for (const replica of direct) {
        const balances = await replica.must('GET', '/_payctl/balances', { token: sender.token });
        expect(balances.body.balances, `balance on ${replica.url}`).toEqual([{ currency: 'USD', value: usdValue(5_000_000 - spent) }]);
      }
      expect(await auditProblems(client, sender.token)).toEqual([]);
      summary.push(
        `payouts: one batch of 2,500 items over ${REPLICAS} replicas: SUCCESS after ${Math.round(waited)} ms; items ${JSON.stringify(tally(items.map((item) => item.status)))}, ` +
          `movements ${movements.length}, events ${events.length}, events received twice ${eventIds.filter((id) => (receiver.received.get(id) ?? 0) > 1).length}`,
      );
    } finally {
      await client.close();
      await receiver.close();
    }
  });

  // Last: it kills a replica.
  it('SIGKILL one replica under write load: the others finish its work, no acknowledged write is lost, the audit is clean', async () => {
    // A slow receiver (300 ms an answer, 8 at once per replica): a backlog builds up, every replica
    // holds leased deliveries, and the killed one has some in flight (unanswered) when it dies.
    const receiver = await startEventReceiver({ answerDelayMs: 300 });
    const control = spread(4);
    const merchant = await newMerchant('sigkill');
    await subscribe(control, merchant.token, `${receiver.url}/sigkill`);
    const client = spread(8, 20_000);
    const load = new MixedLoad({ client, token: merchant.token, workers: 15, maxMs: 30_000, maxWritesPerWorker: 400, receiverPayerId: replicas[0]!.payerId, random });
    const victim = REPLICAS - 1;
    const problems: string[] = [];
    try {
      const running = load.run();
      // Kill once deliveries are flowing and every replica holds leased, unfinished deliveries: the
      // victim dies with work that only the others can finish (after its leases run out).
      const leaseHolders = () =>
        db.all<{ owner: string; n: number }>(
          "SELECT lease_owner AS owner, COUNT(*) AS n FROM webhook_deliveries WHERE account_id = ? AND status <> 'DELIVERED' AND lease_until > ? GROUP BY lease_owner",
          merchant.payerId,
          Date.now(),
        );
      await receiver.until(() => receiver.received.size >= 100, 60_000, '100 deliveries before the kill');
      await eventually('every replica holding leased deliveries', 60_000, async () => (await leaseHolders()).length === REPLICAS);
      const writesAtKill = load.records.length;
      await replicas[victim]!.kill('SIGKILL');
      const leased = await leaseHolders();
      client.markDown(victim);
      control.markDown(victim);
      // The load goes on over the survivors until another 100 events have been delivered.
      const receivedAtKill = receiver.received.size;
      await receiver.until(() => receiver.received.size >= receivedAtKill + 100, 60_000, '100 deliveries after the kill');
      load.stop();
      await running;

      const records = load.records;
      const byOutcome = (outcome: string) => records.filter((record) => record.outcome === outcome);
      for (const record of byOutcome('failed')) problems.push(`${record.kind} answered ${record.status}: ${JSON.stringify(record.response)}`);
      const acknowledged = byOutcome('acknowledged').map((record) => effectOf(record, record.response));
      problems.push(...(await verifyAcknowledged(control, merchant.token, acknowledged)).map((problem) => `lost write: ${problem}`));

      // Answers lost with the victim: committed or not, resent twice to the survivors, they take effect once.
      const lost = byOutcome('lost');
      const committed = await committedRequestIds(database.url, merchant.payerId, lost.map((record) => record.requestId));
      const effects: Effect[] = [...acknowledged];
      for (const record of lost) {
        const { first, second, same } = await resendTwice(control, merchant.token, record);
        if (!same) problems.push(`${record.kind} resent twice answered ${first.status} ${first.text} then ${second.status} ${second.text}`);
        if (first.status >= 500) problems.push(`${record.kind} resent answered ${first.status}`);
        if (first.status < 300) effects.push(effectOf(record, first.body));
        if (committed.has(record.requestId) && first.status >= 300) problems.push(`${record.kind} ${record.requestId} had committed but its resend answered ${first.status} ${first.text}`);
      }
      problems.push(...(await verifyAcknowledged(control, merchant.token, effects.slice(acknowledged.length))).map((problem) => `resent write missing: ${problem}`));

      // The victim's background work is finished by the others: payout batches settle, every
      // event is delivered (those it had in flight included).
      const waited = await eventually('open payout batches settled', BACKGROUND_WAIT_MS, async () => {
        const [open] = await db.column<number>("SELECT COUNT(*) FROM payout_batches WHERE account_id = ? AND status IN ('PENDING', 'PROCESSING')", merchant.payerId);
        return open === 0;
      });
      problems.push(...(await exactlyOnceProblems(database.url, merchant.payerId, effects)));
      const eventIds = await db.column<string>('SELECT id FROM events WHERE account_id = ?', merchant.payerId);
      const deliveryStarted = performance.now();
      await receiver.until(() => receiver.received.size >= eventIds.length && eventIds.every((id) => receiver.received.has(id)), BACKGROUND_WAIT_MS, 'every event received after the kill').catch((error: Error) => {
        problems.push(`${error.message}; missing ${eventIds.filter((id) => !receiver.received.has(id)).length} of ${eventIds.length}`);
      });
      await eventually('every delivery DELIVERED', BACKGROUND_WAIT_MS, async () => {
        const [open] = await db.column<number>("SELECT COUNT(*) FROM webhook_deliveries WHERE account_id = ? AND status <> 'DELIVERED'", merchant.payerId);
        return open === 0;
      }).catch((error: Error) => problems.push(error.message));
      const deliveryMs = performance.now() - deliveryStarted;
      const abandoned = [...receiver.abandoned.keys()];
      const abandonedRedelivered = abandoned.filter((id) => (receiver.received.get(id) ?? 0) >= 2);
      const twice = eventIds.filter((id) => (receiver.received.get(id) ?? 0) > 1);

      const audit = await auditProblems(control, merchant.token);
      const wholeAudit = await auditProblems(control, adminKey());
      problems.push(...audit.map((problem) => `audit: ${problem}`), ...wholeAudit.map((problem) => `whole-database audit: ${problem}`));

      summary.push(
        `sigkill: replica ${victim + 1} of ${REPLICAS} killed after ${writesAtKill} writes, open deliveries leased then ${JSON.stringify(leased.map((entry) => entry.n))} (per holder); writes ${records.length} (sent ${client.sent.join('/')}), ` +
          `acknowledged ${acknowledged.length}, refused ${byOutcome('refused').length}, 5xx ${byOutcome('failed').length}, lost answers ${lost.length} (committed ${committed.size}); ` +
          `payout batches settled after ${Math.round(waited)} ms; events ${eventIds.length}, all delivered ${Math.round(deliveryMs)} ms after the load; ` +
          `deliveries the victim left unanswered ${abandoned.length} (redelivered by the others ${abandonedRedelivered.length}), events received twice ${twice.length}; ` +
          `problems ${problems.length}`,
      );
      if (problems.length > 0) summary.push(...problems.slice(0, 30).map((problem) => `  ${problem}`));
      expect(problems).toEqual([]);
      expect(acknowledged.length).toBeGreaterThan(100);
      // The positive control: the victim died holding leased deliveries (every replica held some just
      // before), and every delivery is made; those it left unanswered were made again by the others.
      expect(leased).toHaveLength(REPLICAS);
      expect(abandonedRedelivered).toEqual(abandoned);
    } finally {
      load.stop();
      await client.close();
      await control.close();
      await receiver.close();
    }
  });
});
