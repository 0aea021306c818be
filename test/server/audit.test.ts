// The ledger audit finds what is wrong, and only that.

import { sql, type RawBuilder } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAudit, type AuditResult } from '../../src/server/audit/service.js';
import type { Trx } from '../../src/server/db/schema.js';
import { recordMovement } from '../../src/server/ledger/store.js';
import { onPostgres } from '../helpers/postgres.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** The database engine's own checks the admin's audit adds. */
const ENGINE_CHECKS = onPostgres ? ['postgres-indexes-valid', 'foreign-keys'] : ['sqlite-integrity', 'foreign-keys'];

/** `column` with the JSON value at `path` (`$.a[0].b`) set to the string `value`, in the database's SQL. */
const jsonSet = (column: string, path: string, value: string): RawBuilder<string> => {
  if (!onPostgres) return sql<string>`json_set(${sql.ref(column)}, ${path}, ${value})`;
  const steps = path.replace(/^\$\./, '').replace(/\[(\d+)\]/g, '.$1').split('.');
  return sql<string>`jsonb_set(${sql.ref(column)}::jsonb, ${`{${steps.join(',')}}`}::text[], to_jsonb(${value}::text))::text`;
};

const failing = (body: { checks: Array<{ name: string; violations: unknown[] }> }) =>
  body.checks.filter((check) => check.violations.length > 0).map((check) => check.name);

describe('GET /_payctl/audit', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  it('is clean on a consistent ledger, for the account and for all (with the engine checks)', async () => {
    const db = t.server.db;
    await db.transaction().execute(async (trx) => {
      for (const amount of [1000n, 250n, -300n]) {
        await recordMovement(trx, { accountId: t.merchant.payer_id, currency: 'USD', amountMinor: amount, kind: 'TOP_UP', referenceId: 'x', createTime: '2026-01-01T00:00:00Z' });
      }
    });
    const mine = await t.request('GET', '/_payctl/audit');
    expect(mine.status).toBe(200);
    expect(mine.body.ok).toBe(true);
    expect(mine.body.scope).toBe('account');
    expect(mine.body.checks.map((check: { name: string }) => check.name)).toContain('balances-match-movements');
    const all = await t.request('GET', '/_payctl/audit', { token: t.adminKey });
    expect(all.body.ok).toBe(true);
    expect(all.body.checks.map((check: { name: string }) => check.name)).toEqual(expect.arrayContaining(ENGINE_CHECKS));
  });

  it('reports a balance that differs from its movements, to its owner and to the admin only', async () => {
    await sql`UPDATE balances SET available_minor = available_minor + 1 WHERE account_id = ${t.merchant.payer_id}`.execute(t.server.db);
    const mine = await t.request('GET', '/_payctl/audit');
    expect(mine.body.ok).toBe(false);
    expect(failing(mine.body)).toEqual(['balances-match-movements']);
    expect(mine.body.checks.find((check: { name: string }) => check.name === 'balances-match-movements').violations[0]).toMatchObject({
      account_id: t.merchant.payer_id,
      currency: 'USD',
      balance: '951',
      movements: '950',
    });
    const other = await t.createMerchant();
    const theirs = await t.request('GET', '/_payctl/audit', { token: other.token });
    expect(theirs.body.ok).toBe(true);
    expect(failing((await t.request('GET', '/_payctl/audit', { token: t.adminKey })).body)).toEqual(['balances-match-movements']);
  });
});

// Invoices and payouts: a clean set of each passes; every check reports the one row broken for it.
describe('invoice and payout checks', () => {
  let s: TestServer;
  let owner: string;
  const ids = { partlyPaid: '', partlyRefunded: '', markedRefunded: '', tippedMixed: '', refundedMixed: '', batch: '', paidItem: '', unclaimedItem: '', returnedItem: '' };

  const usd = (value: string) => ({ currency_code: 'USD', value });
  async function ok(response: { status: number; text: string }, status: number) {
    expect(response.status, response.text).toBe(status);
  }
  async function sentInvoice(value: string, allowTip = false): Promise<string> {
    const created = await s.request('POST', '/v2/invoicing/invoices', {
      body: {
        ...(allowTip ? { configuration: { allow_tip: true } } : {}),
        detail: { currency_code: 'USD' },
        primary_recipients: [{ billing_info: { email_address: 'payer@example.com' } }],
        items: [{ name: 'Service', quantity: '1', unit_amount: usd(value) }],
      },
    });
    await ok(created, 201);
    await ok(await s.request('POST', `/v2/invoicing/invoices/${created.body.id}/send`, { body: {} }), 200);
    return created.body.id as string;
  }
  const pay = async (id: string, method: string, value: string) =>
    ok(await s.request('POST', `/v2/invoicing/invoices/${id}/payments`, { body: { method, amount: usd(value) } }), 200);
  const refundInvoice = async (id: string, method: string, value: string) =>
    ok(await s.request('POST', `/v2/invoicing/invoices/${id}/refunds`, { body: { method, amount: usd(value) } }), 200);

  beforeAll(async () => {
    s = await startTestServer({ memory: true, config: { jobIntervalMs: 3_600_000 } });
    owner = s.merchant.payer_id;
    const bob = await s.createMerchant('bob-audit@example.com');

    ids.partlyPaid = await sentInvoice('100.00');
    await pay(ids.partlyPaid, 'BANK_TRANSFER', '40.00');
    ids.partlyRefunded = await sentInvoice('50.00');
    await pay(ids.partlyRefunded, 'PLATFORM', '50.00');
    await refundInvoice(ids.partlyRefunded, 'PLATFORM', '20.00');
    ids.markedRefunded = await sentInvoice('30.00');
    await pay(ids.markedRefunded, 'CASH', '30.00');
    await refundInvoice(ids.markedRefunded, 'CASH', '30.00');
    // Part recorded by the invoicer, the rest through the platform with a 2.00 tip: marked, paid over the total.
    ids.tippedMixed = await sentInvoice('20.00', true);
    await pay(ids.tippedMixed, 'CASH', '5.00');
    await pay(ids.tippedMixed, 'PLATFORM', '17.00');
    ids.refundedMixed = await sentInvoice('10.00');
    await pay(ids.refundedMixed, 'PLATFORM', '10.00');
    await refundInvoice(ids.refundedMixed, 'PLATFORM', '5.00');
    await refundInvoice(ids.refundedMixed, 'CASH', '5.00');

    await ok(await s.request('POST', '/_payctl/balances', { body: { currency: 'USD', value: '100.00' } }), 200);
    const batch = await s.request('POST', '/v1/payments/payouts', {
      body: {
        sender_batch_header: { sender_batch_id: 'audit-batch', recipient_type: 'EMAIL' },
        items: [
          { receiver: bob.email, amount: { currency: 'USD', value: '10.00' } },
          { receiver: 'stranger@example.com', amount: { currency: 'USD', value: '5.00' } },
          { receiver: 'another-stranger@example.com', amount: { currency: 'USD', value: '2.00' } },
        ],
      },
    });
    await ok(batch, 201);
    ids.batch = batch.body.batch_header.payout_batch_id as string;
    await s.server.deps.scheduler.runAll();
    const items = (await s.request('GET', `/v1/payments/payouts/${ids.batch}`)).body.items as Array<{ payout_item_id: string; transaction_status: string }>;
    expect(items.map((item) => item.transaction_status)).toEqual(['SUCCESS', 'UNCLAIMED', 'UNCLAIMED']);
    [ids.paidItem, ids.unclaimedItem, ids.returnedItem] = items.map((item) => item.payout_item_id) as [string, string, string];
    await ok(await s.request('POST', `/v1/payments/payouts-item/${ids.returnedItem}/cancel`), 200);
  });
  afterAll(() => s.close());

  it('finds nothing wrong with paid, refunded and marked invoices and a settled batch with a returned item', async () => {
    const statuses = await s.server.db.selectFrom('invoices').select(['id', 'status']).where('account_id', '=', owner).execute();
    expect(Object.fromEntries(statuses.map((row) => [row.id, row.status]))).toEqual({
      [ids.partlyPaid]: 'PARTIALLY_PAID',
      [ids.partlyRefunded]: 'PARTIALLY_REFUNDED',
      [ids.markedRefunded]: 'MARKED_AS_REFUNDED',
      [ids.tippedMixed]: 'MARKED_AS_PAID',
      [ids.refundedMixed]: 'MARKED_AS_REFUNDED',
    });
    const all = await s.request('GET', '/_payctl/audit', { token: s.adminKey });
    expect(all.status).toBe(200);
    expect(failing(all.body)).toEqual([]);
    expect(all.body.ok).toBe(true);
    const names = all.body.checks.map((check: { name: string }) => check.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'invoice-amounts-match-transactions',
        'invoice-refunds-within-payments',
        'invoice-status-matches-amounts',
        'payout-batch-totals-match-items',
        'payout-items-charged-once',
        'payout-returns-credited-once',
        'payout-movements-have-items',
      ]),
    );
    expect(all.body.skipped).toEqual([]);
  });

  /** A movement with its balance kept in step, so that only the payout checks can see it. */
  const movement = (kind: string, amount: number, reference: () => string) => async (trx: Trx) => {
    await sql`INSERT INTO balance_movements (account_id, currency, amount_minor, kind, reference_id, create_time)
              VALUES (${owner}, 'USD', ${amount}, ${kind}, ${reference()}, '2026-01-01T00:00:00Z')`.execute(trx);
    await sql`UPDATE balances SET available_minor = available_minor + ${amount} WHERE account_id = ${owner} AND currency = 'USD'`.execute(trx);
  };
  /** Deletes an item's movement of one kind, and its effect on the balance. */
  const withoutMovement = (kind: string, reference: () => string) => async (trx: Trx) => {
    const row = await sql<{ seq: bigint; amount_minor: bigint }>`SELECT seq, amount_minor FROM balance_movements WHERE kind = ${kind} AND reference_id = ${reference()}`.execute(trx);
    expect(row.rows).toHaveLength(1);
    const [{ seq, amount_minor: amount }] = row.rows as [{ seq: bigint; amount_minor: bigint }];
    await sql`DELETE FROM balance_movements WHERE seq = ${seq}`.execute(trx);
    await sql`UPDATE balances SET available_minor = available_minor - ${amount} WHERE account_id = ${owner} AND currency = 'USD'`.execute(trx);
  };
  const update = (statement: (id: () => string) => RawBuilder<unknown>, id: () => string) => async (trx: Trx) => {
    const result = await statement(id).execute(trx);
    expect(result.numAffectedRows).toBe(1n);
  };

  const corruptions: Array<{ what: string; corrupt: (trx: Trx) => Promise<void>; reported: string; row: Record<string, string> }> = [
    {
      what: 'paid amount one cent off its payments',
      corrupt: update((id) => sql`UPDATE invoices SET paid_minor = paid_minor + 1 WHERE id = ${id()}`, () => ids.partlyPaid),
      reported: 'invoice-amounts-match-transactions',
      row: { paid_minor: '4001', payments: '4000' },
    },
    {
      what: 'a recorded payment of a fraction of a cent',
      corrupt: update((id) => sql`UPDATE invoices SET transactions = ${jsonSet('transactions', '$.payments[0].amount_minor', '4000.5')} WHERE id = ${id()}`, () => ids.partlyPaid),
      reported: 'invoice-amounts-match-transactions',
      row: { bad_amounts: '1' },
    },
    {
      what: 'a refunded amount missing from the refunds',
      corrupt: update((id) => sql`UPDATE invoices SET refunded_minor = 2500 WHERE id = ${id()}`, () => ids.partlyRefunded),
      reported: 'invoice-amounts-match-transactions',
      row: { refunded_minor: '2500', refunds: '2000' },
    },
    {
      what: 'refunds above the payments (status and transactions in step)',
      corrupt: update(
        (id) => sql`UPDATE invoices SET refunded_minor = 6000, status = 'REFUNDED',
                      transactions = ${jsonSet('transactions', '$.refunds[0].amount_minor', '6000')} WHERE id = ${id()}`,
        () => ids.partlyRefunded,
      ),
      reported: 'invoice-refunds-within-payments',
      row: { paid_minor: '5000', refunded_minor: '6000' },
    },
    {
      what: 'a partly paid invoice marked PAID',
      corrupt: update((id) => sql`UPDATE invoices SET status = 'PAID' WHERE id = ${id()}`, () => ids.partlyPaid),
      reported: 'invoice-status-matches-amounts',
      row: { status: 'PAID', expected: 'PARTIALLY_PAID' },
    },
    {
      what: 'externally refunded invoice shown as REFUNDED',
      corrupt: update((id) => sql`UPDATE invoices SET status = 'REFUNDED' WHERE id = ${id()}`, () => ids.markedRefunded),
      reported: 'invoice-status-matches-amounts',
      row: { status: 'REFUNDED', expected: 'MARKED_AS_REFUNDED' },
    },
    {
      what: 'a paid invoice back in SENT',
      corrupt: update((id) => sql`UPDATE invoices SET status = 'SENT' WHERE id = ${id()}`, () => ids.partlyRefunded),
      reported: 'invoice-status-matches-amounts',
      row: { status: 'SENT', expected: 'PARTIALLY_REFUNDED' },
    },
    {
      what: 'a stored invoice body that no longer passes the invoice schema',
      corrupt: update((id) => sql`UPDATE invoices SET body = ${jsonSet('body', '$.item_ids', 'not a list')} WHERE id = ${id()}`, () => ids.partlyPaid),
      reported: 'stored-invoices-valid',
      row: { problem: expect.stringMatching(/^item_ids: /) },
    },
    {
      what: 'a stored invoice body that is not JSON',
      corrupt: update((id) => sql`UPDATE invoices SET body = '{"input": ' WHERE id = ${id()}`, () => ids.markedRefunded),
      reported: 'stored-invoices-valid',
      row: { problem: 'not JSON' },
    },
    {
      what: 'a stored invoice body changed without its view template (list pages would show the old one)',
      corrupt: update((id) => sql`UPDATE invoices SET body = ${jsonSet('body', '$.input.items[0].name', 'Renamed')} WHERE id = ${id()}`, () => ids.partlyRefunded),
      reported: 'stored-invoices-valid',
      row: { problem: expect.stringMatching(/^view_template: /) },
    },
    {
      what: 'a batch amount one cent off its items',
      corrupt: update((id) => sql`UPDATE payout_batches SET amount_minor = amount_minor + 1 WHERE id = ${id()}`, () => ids.batch),
      reported: 'payout-batch-totals-match-items',
      row: { amount_minor: '1701', items_total: '1700' },
    },
    {
      what: 'a batch counting an item it does not have',
      corrupt: update((id) => sql`UPDATE payout_batches SET item_count = 4 WHERE id = ${id()}`, () => ids.batch),
      reported: 'payout-batch-totals-match-items',
      row: { item_count: '4', items: '3' },
    },
    {
      what: 'a paid item charged twice',
      corrupt: movement('PAYOUT', -1000, () => ids.paidItem),
      reported: 'payout-items-charged-once',
      row: { status: 'SUCCESS', payouts: '2', payout_total: '-2000' },
    },
    {
      what: 'an unclaimed item whose fee was never charged',
      corrupt: withoutMovement('PAYOUT_FEE', () => ids.unclaimedItem),
      reported: 'payout-items-charged-once',
      row: { status: 'UNCLAIMED', fees: '0', fee_total: '0' },
    },
    {
      what: 'an item that failed but was charged',
      corrupt: update((id) => sql`UPDATE payout_items SET status = 'FAILED' WHERE id = ${id()}`, () => ids.paidItem),
      reported: 'payout-items-charged-once',
      row: { status: 'FAILED', payouts: '1' },
    },
    {
      what: 'a returned item never credited back',
      corrupt: withoutMovement('PAYOUT_RETURN', () => ids.returnedItem),
      reported: 'payout-returns-credited-once',
      row: { status: 'RETURNED', returns: '0' },
    },
    {
      what: 'an unclaimed item credited back while still unclaimed',
      corrupt: movement('PAYOUT_RETURN', 510, () => ids.unclaimedItem),
      reported: 'payout-returns-credited-once',
      row: { status: 'UNCLAIMED', returns: '1', return_total: '510' },
    },
    {
      what: 'an account counting a fault rule it does not have',
      corrupt: update((id) => sql`UPDATE accounts SET fault_rule_count = fault_rule_count + 1 WHERE id = ${id()}`, () => owner),
      reported: 'fault-rule-counts-match',
      row: { counted: '1', rules: '0' },
    },
    {
      what: 'an account with a fault rule it does not count (its requests would skip it)',
      corrupt: async (trx) => {
        await sql`INSERT INTO fault_rules (id, account_id, method, path, after_calls, times, respond, create_time, matched, fired)
                  VALUES ('FR-AUDIT', ${owner}, 'GET', '/v2/x', 0, NULL, '{"status":500}', '2026-01-01T00:00:00Z', 0, 0)`.execute(trx);
      },
      reported: 'fault-rule-counts-match',
      row: { counted: '0', rules: '1' },
    },
    {
      what: 'a merchant counting journal entries it does not have (retention would delete too many)',
      corrupt: async (trx) => {
        await sql`DELETE FROM request_journal_counts WHERE account_id = ${owner}`.execute(trx);
        await sql`INSERT INTO request_journal_counts (account_id, entries) VALUES (${owner}, 1000000)`.execute(trx);
      },
      reported: 'journal-counts-match',
      row: { counted: '1000000' },
    },
    {
      what: 'journal entries of a merchant with no count (retention would never delete them)',
      corrupt: async (trx) => {
        await sql`DELETE FROM request_journal_counts WHERE account_id = ${owner}`.execute(trx);
        await sql`INSERT INTO request_journal (account_id, time, account_time, method, path, query, status, duration_us, request_id, fault_id, detail)
                  VALUES (${owner}, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', 'GET', '/v2/x', '', 200, 1, NULL, NULL, '{}')`.execute(trx);
      },
      reported: 'journal-counts-match',
      row: { counted: '0' },
    },
    {
      what: 'a payout movement with no item',
      corrupt: movement('PAYOUT', -700, () => 'NOSUCHITEM'),
      reported: 'payout-movements-have-items',
      row: { kind: 'PAYOUT', amount_minor: '-700', reference_id: 'NOSUCHITEM' },
    },
  ];

  it.each(corruptions)('reports $what ($reported), to the owner and the admin, and nothing else', async ({ corrupt, reported, row }) => {
    const rollback = new Error('rollback');
    const seen: { all?: AuditResult; mine?: AuditResult; other?: AuditResult } = {};
    const other = await s.server.db.selectFrom('accounts').select('id').where('id', '<>', owner).executeTakeFirstOrThrow();
    // Corrupted, audited and rolled back in one transaction: every case starts from the clean ledger.
    await expect(
      s.server.db.transaction().execute(async (trx) => {
        await corrupt(trx);
        const engine = s.server.deps.storage.audit;
        seen.all = await runAudit(trx, engine, null);
        seen.mine = await runAudit(trx, engine, owner);
        seen.other = await runAudit(trx, engine, other.id);
        throw rollback;
      }),
    ).rejects.toBe(rollback);
    expect(failing(seen.all!)).toEqual([reported]);
    expect(seen.all!.ok).toBe(false);
    expect(failing(seen.mine!)).toEqual([reported]);
    expect(seen.mine!.checks.find((check) => check.name === reported)!.violations).toEqual([expect.objectContaining({ account_id: owner, ...row })]);
    expect(seen.other!.ok).toBe(true);
  });

  it('is clean again after the rolled-back corruptions', async () => {
    expect(failing((await s.request('GET', '/_payctl/audit', { token: s.adminKey })).body)).toEqual([]);
  });
});
