// Races against one built `payctl serve`: 1,000 captures over 50 connections on 100 authorizations
// (100 of them 5-fold duplicates of 20 request ids, each group sent at once), 200 concurrent
// partial refunds of one capture, 50 parallel voids of one authorization, and (beyond the issue's
// list) 50 concurrent payments then refunds on one invoice. Limits hold exactly,
// a request id takes effect once and replays its answer, and the audit stays clean.

import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadClient, mapConcurrent, tokenFor, type LoadClient, type Outcome } from './support/http.js';
import { centsOf, seededRandom, usdValue } from './support/mixed-load.js';
import { startServe, tempDir, type ServeProcess } from './support/serve-process.js';

const SEED = Number(process.env.PAYCTL_RACES_SEED ?? Math.floor(Math.random() * 2 ** 31));
const random = seededRandom(SEED);
const FULL = { prefer: 'return=representation' };

let dir: string;
let server: ServeProcess;
let control: LoadClient;
let token: string;
const summary: string[] = [];

beforeAll(async () => {
  dir = tempDir('races');
  server = await startServe({ dbPath: join(dir, 'payctl.db') });
  control = loadClient(server.url, { connections: 10 });
  token = await tokenFor(control, server.credentials.clientId, server.credentials.clientSecret);
});

afterAll(async () => {
  console.log(['', '=== RACES SUMMARY (test/reliability/races.test.ts) ===', `seed ${SEED} (PAYCTL_RACES_SEED)`, ...summary, ''].join('\n'));
  await control?.close();
  await server?.kill('SIGTERM');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}

/** Reads the server's database file (read-only, beside the running server: WAL allows it). */
function query<T>(sqlText: string, ...params: unknown[]): T[] {
  const db = new BetterSqlite3(server.dbPath, { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sqlText).all(...params) as T[];
  } finally {
    db.close();
  }
}

async function authorize(cents: number): Promise<string> {
  const order = await control.must('POST', '/v2/checkout/orders', {
    token,
    headers: { 'service-request-id': randomUUID(), ...FULL },
    body: { intent: 'AUTHORIZE', purchase_units: [{ amount: { currency_code: 'USD', value: usdValue(cents) } }], payment_source: { card: { number: '4111111111111111', expiry: '2030-12' } } },
  });
  expect(order.status, order.text).toBe(201);
  const authorized = await control.must('POST', `/v2/checkout/orders/${order.body.id}/authorize`, { token, headers: { 'service-request-id': randomUUID(), ...FULL }, body: {} });
  expect(authorized.status, authorized.text).toBe(201);
  return authorized.body.purchase_units[0].payments.authorizations[0].id as string;
}

const answered = (outcome: Outcome) => {
  if (outcome.lost) throw new Error(`no answer: ${outcome.error}`);
  return outcome;
};
const issueOf = (body: any): string => body?.details?.[0]?.issue ?? body?.name ?? 'none';
const tally = (values: readonly string[]) => Object.fromEntries([...new Set(values)].sort().map((value) => [value, values.filter((v) => v === value).length]));

describe('races', () => {
  it('1,000 captures on 100 authorizations over 50 connections: one capture per request id, duplicates replay the first answer', async () => {
    const auths = await mapConcurrent(Array.from({ length: 100 }, () => 10_000), 10, authorize);
    interface Capture { requestId: string; auth: string; cents: number }
    const singles: Capture[] = Array.from({ length: 900 }, (_, i) => ({ requestId: randomUUID(), auth: auths[i % 100] as string, cents: 100 + Math.floor(random() * 100) }));
    const groups: Capture[] = Array.from({ length: 20 }, (_, g) => ({ requestId: randomUUID(), auth: auths[(g * 7) % 100] as string, cents: 250 }));
    // A job is one request, or one request id's five copies sent together.
    const jobs = shuffle<Capture[]>([...singles.map((single) => [single]), ...groups.map((group) => Array<Capture>(5).fill(group))]);
    const client = loadClient(server.url, { connections: 50 });
    const started = performance.now();
    const answers: Array<{ capture: Capture; status: number; body: any }> = [];
    try {
      await mapConcurrent(jobs, 50, async (copies) => {
        const results = await Promise.all(
          copies.map((capture) =>
            client.call('POST', `/v2/payments/authorizations/${capture.auth}/capture`, {
              token,
              headers: { 'service-request-id': capture.requestId, ...FULL },
              body: { amount: { currency_code: 'USD', value: usdValue(capture.cents) }, final_capture: false },
            }),
          ),
        );
        results.forEach((outcome, index) => {
          const { status, body } = answered(outcome);
          answers.push({ capture: copies[index] as Capture, status, body });
        });
      });
    } finally {
      await client.close();
    }
    const elapsed = performance.now() - started;

    expect(answers).toHaveLength(1_000);
    expect(tally(answers.map((answer) => String(answer.status)))).toEqual({ '200': 1_000 });
    const byId = new Map<string, Array<{ status: number; body: any }>>();
    for (const answer of answers) byId.set(answer.capture.requestId, [...(byId.get(answer.capture.requestId) ?? []), answer]);
    expect(byId.size).toBe(920);
    let duplicatesDiffering = 0;
    for (const [, copies] of byId) {
      const [first] = copies;
      for (const copy of copies.slice(1)) if (copy.status !== first?.status || !isDeepStrictEqual(copy.body, first?.body)) duplicatesDiffering += 1;
    }
    expect(duplicatesDiffering).toBe(0);
    expect(groups.every((group) => byId.get(group.requestId)?.length === 5)).toBe(true);

    // One stored capture (with one ledger movement and one event) per request id, and nothing else.
    const answeredIds = new Set([...byId.values()].map((copies) => copies[0]?.body.id as string));
    expect(answeredIds.size).toBe(920);
    const marks = auths.map(() => '?').join(',');
    const stored = query<{ id: string; authorization_id: string; amount_minor: number }>(`SELECT id, authorization_id, amount_minor FROM captures WHERE authorization_id IN (${marks})`, ...auths);
    expect(new Set(stored.map((row) => row.id))).toEqual(answeredIds);
    const movements = query<{ n: number }>(`SELECT COUNT(*) AS n FROM balance_movements WHERE kind = 'CAPTURE' AND reference_id IN (SELECT id FROM captures WHERE authorization_id IN (${marks}))`, ...auths);
    expect(movements[0]?.n).toBe(920);
    const events = query<{ n: number }>(`SELECT COUNT(*) AS n FROM events WHERE event_type = 'PAYMENT.CAPTURE.COMPLETED' AND resource_id IN (SELECT id FROM captures WHERE authorization_id IN (${marks}))`, ...auths);
    expect(events[0]?.n).toBe(920);
    const expected = new Map<string, number>();
    for (const [, copies] of byId) {
      const body = copies[0]?.body;
      const auth = body.supplementary_data.related_ids.authorization_id as string;
      expected.set(auth, (expected.get(auth) ?? 0) + centsOf(body.amount.value as string));
    }
    const capturedRows = query<{ id: string; captured_minor: number }>(`SELECT id, captured_minor FROM authorizations WHERE id IN (${marks})`, ...auths);
    expect(Object.fromEntries(capturedRows.map((row) => [row.id, row.captured_minor]))).toEqual(Object.fromEntries(auths.map((auth) => [auth, expected.get(auth) ?? 0])));

    summary.push(
      `captures: 1000 requests (900 single + 20 ids x 5 at once) on 100 authorizations, 50 connections: ${Math.round(elapsed)} ms, ` +
        `${Math.round(1000 / (elapsed / 1000))} req/s; statuses ${JSON.stringify(tally(answers.map((a) => String(a.status))))}; ` +
        `distinct request ids 920, stored captures ${stored.length}, CAPTURE movements ${movements[0]?.n}, CAPTURE.COMPLETED events ${events[0]?.n}, duplicates answered differently ${duplicatesDiffering}`,
    );
  });

  it('200 concurrent partial refunds of one 100.00 capture stop exactly at its amount', async () => {
    const auth = await authorize(10_000);
    const captured = await control.must('POST', `/v2/payments/authorizations/${auth}/capture`, { token, headers: { 'service-request-id': randomUUID(), ...FULL }, body: {} });
    expect(captured.status, captured.text).toBe(200);
    const captureId = captured.body.id as string;
    // Enough balance that no refund is refused for funds: only the capture's amount limits them.
    expect((await control.must('POST', '/_payctl/balances', { token, body: { currency: 'USD', value: '1000.00' } })).status).toBe(200);

    // 150 of 10.00 and 50 of 30.00: the remaining amount is always a multiple of 10.00, so 10.00
    // refunds fit until it is 0, and ten refunds are reached only by refunding it all.
    const amounts = shuffle([...Array<number>(150).fill(1_000), ...Array<number>(50).fill(3_000)]);
    const client = loadClient(server.url, { connections: 200 });
    const started = performance.now();
    let outcomes: Array<{ cents: number; status: number; body: any }>;
    try {
      outcomes = await Promise.all(
        amounts.map(async (cents) => {
          const { status, body } = answered(
            await client.call('POST', `/v2/payments/captures/${captureId}/refund`, {
              token,
              headers: { 'service-request-id': randomUUID(), ...FULL },
              body: { amount: { currency_code: 'USD', value: usdValue(cents) } },
            }),
          );
          return { cents, status, body };
        }),
      );
    } finally {
      await client.close();
    }
    const elapsed = performance.now() - started;
    const succeeded = outcomes.filter((outcome) => outcome.status === 200);
    const refused = outcomes.filter((outcome) => outcome.status !== 200);
    const refundedCents = succeeded.reduce((sum, outcome) => sum + centsOf(outcome.body.amount.value as string), 0);
    expect(refundedCents).toBe(10_000);
    expect(refused.every((outcome) => outcome.status === 422)).toBe(true);
    expect(new Set(refused.map((outcome) => issueOf(outcome.body))).size).toBeGreaterThan(0);
    for (const issue of refused.map((outcome) => issueOf(outcome.body))) expect(['CAPTURE_FULLY_REFUNDED', 'REFUND_AMOUNT_EXCEEDED']).toContain(issue);
    const capture = await control.must('GET', `/v2/payments/captures/${captureId}`, { token });
    expect(capture.body.status).toBe('REFUNDED');
    const rows = query<{ id: string; amount_minor: number }>('SELECT id, amount_minor FROM refunds WHERE capture_id = ?', captureId);
    expect(new Set(rows.map((row) => row.id))).toEqual(new Set(succeeded.map((outcome) => outcome.body.id as string)));
    expect(query<{ refunded_minor: number }>('SELECT refunded_minor FROM captures WHERE id = ?', captureId)[0]?.refunded_minor).toBe(10_000);

    summary.push(
      `refunds: 200 concurrent (150 x 10.00, 50 x 30.00) on one 100.00 capture, 200 connections: ${Math.round(elapsed)} ms; ` +
        `${succeeded.length} succeeded summing ${usdValue(refundedCents)} (capture 100.00); refused ${JSON.stringify(tally(refused.map((o) => `${o.status} ${issueOf(o.body)}`)))}`,
    );
  });

  it('50 parallel voids of one authorization: exactly one succeeds', async () => {
    const auth = await authorize(5_000);
    const client = loadClient(server.url, { connections: 50 });
    let outcomes: Array<{ status: number; body: any }>;
    try {
      outcomes = await Promise.all(
        Array.from({ length: 50 }, async () =>
          answered(await client.call('POST', `/v2/payments/authorizations/${auth}/void`, { token, headers: { 'service-request-id': randomUUID(), ...FULL }, body: {} })),
        ),
      );
    } finally {
      await client.close();
    }
    const statuses = tally(outcomes.map((outcome) => `${outcome.status} ${outcome.status === 200 ? outcome.body.status : issueOf(outcome.body)}`));
    expect(statuses).toEqual({ '200 VOIDED': 1, '422 PREVIOUSLY_VOIDED': 49 });
    expect((await control.must('GET', `/v2/payments/authorizations/${auth}`, { token })).body.status).toBe('VOIDED');
    expect(query<{ n: number }>("SELECT COUNT(*) AS n FROM events WHERE event_type = 'PAYMENT.AUTHORIZATION.VOIDED' AND resource_id = ?", auth)[0]?.n).toBe(1);
    summary.push(`voids: 50 parallel on one authorization: ${JSON.stringify(statuses)}`);
  });

  it('50 concurrent 10.00 payments, then 50 concurrent 10.00 refunds, on one 100.00 invoice: exactly ten of each', async () => {
    const created = await control.must('POST', '/v2/invoicing/invoices', {
      token,
      headers: { 'service-request-id': randomUUID() },
      body: { detail: { currency_code: 'USD' }, primary_recipients: [{ billing_info: { email_address: 'payer@example.com' } }], items: [{ name: 'Service', quantity: '1', unit_amount: { currency_code: 'USD', value: '100.00' } }] },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.body.id as string;
    expect((await control.must('POST', `/v2/invoicing/invoices/${id}/send`, { token, body: {} })).status).toBe(200);
    const client = loadClient(server.url, { connections: 50 });
    const burst = (path: string, method: string) =>
      Promise.all(
        Array.from({ length: 50 }, async () =>
          answered(await client.call('POST', path, { token, headers: { 'service-request-id': randomUUID() }, body: { method, amount: { currency_code: 'USD', value: '10.00' } } })),
        ),
      );
    let payments: Array<{ status: number; body: any }>;
    let refunds: Array<{ status: number; body: any }>;
    try {
      payments = await burst(`/v2/invoicing/invoices/${id}/payments`, 'BANK_TRANSFER');
      refunds = await burst(`/v2/invoicing/invoices/${id}/refunds`, 'BANK_TRANSFER');
    } finally {
      await client.close();
    }
    const paid = tally(payments.map((outcome) => `${outcome.status} ${outcome.status === 200 ? 'recorded' : issueOf(outcome.body)}`));
    const refunded = tally(refunds.map((outcome) => `${outcome.status} ${outcome.status === 200 ? 'recorded' : issueOf(outcome.body)}`));
    expect(payments.filter((outcome) => outcome.status === 200)).toHaveLength(10);
    expect(refunds.filter((outcome) => outcome.status === 200)).toHaveLength(10);
    for (const outcome of payments.filter((o) => o.status !== 200)) expect(`${outcome.status} ${issueOf(outcome.body)}`).toMatch(/^422 (CANNOT_PROCESS_PAYMENTS|PAYMENT_AMOUNT_GREATER_THAN_AMOUNT_DUE)$/);
    for (const outcome of refunds.filter((o) => o.status !== 200)) expect(`${outcome.status} ${issueOf(outcome.body)}`).toMatch(/^422 (CANNOT_PROCESS_REFUNDS|INVALID_REFUND_AMOUNT)$/);
    const invoice = await control.must('GET', `/v2/invoicing/invoices/${id}`, { token });
    expect(invoice.body.status).toBe('MARKED_AS_REFUNDED');
    expect(invoice.body.payments.paid_amount.value).toBe('100.00');
    expect(invoice.body.refunds.refund_amount.value).toBe('100.00');
    expect(invoice.body.payments.transactions).toHaveLength(10);
    expect(invoice.body.refunds.transactions).toHaveLength(10);
    summary.push(`invoice: 50 concurrent 10.00 payments on 100.00: ${JSON.stringify(paid)}; then 50 concurrent 10.00 refunds: ${JSON.stringify(refunded)}; final ${invoice.body.status}`);
  });

  it('leaves a clean audit', async () => {
    const audit = await control.must('GET', '/_payctl/audit', { token: server.credentials.adminKey });
    expect(audit.status).toBe(200);
    const violations = (audit.body.checks as Array<{ name: string; violations: unknown[] }>).filter((check) => check.violations.length > 0);
    summary.push(`audit (admin, all accounts, integrity and foreign keys): ok=${audit.body.ok}, violations ${violations.reduce((sum, check) => sum + check.violations.length, 0)}`);
    expect(violations).toEqual([]);
    expect(audit.body.ok).toBe(true);
  });
});
