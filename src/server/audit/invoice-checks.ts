// Invoice invariants: recorded payments and refunds (the `transactions` JSON) against the scalar
// amounts and the status they imply.
//
// The transactions live in a JSON column, so these checks read it with the database's own JSON
// functions: SQLite's json_each/json_extract, PostgreSQL's jsonb operators. The audit is a diagnostic
// over the stored rows, not a store, so it speaks the database's dialect where the data leaves no
// other way.

import { sql } from 'kysely';
import type { Db } from '../db/schema.js';
import type { DialectName } from '../db/storage.js';
import { storedInvoiceProblem, viewTemplateProblem } from '../invoicing/api.js';
import type { AuditCheck, CodeCheck } from './checks.js';

const scope = (column: string, accountId: string | null) =>
  accountId === null ? sql`1 = 1` : sql`${sql.ref(column)} = ${accountId}`;

/** One row per invoice with the sums and counts of its recorded transactions (NULLs when its JSON is unreadable). */
const invoiceTotals = (accountId: string | null, dialect: DialectName) => (dialect === 'postgres' ? postgresInvoiceTotals(accountId) : sqliteInvoiceTotals(accountId));

const sqliteInvoiceTotals = (accountId: string | null) => sql`
  SELECT i.id AS invoice_id, i.account_id, i.status, i.total_minor, i.paid_minor, i.refunded_minor,
    CASE WHEN json_valid(i.transactions) THEN
      (SELECT COALESCE(SUM(CAST(json_extract(p.value, '$.amount_minor') AS INTEGER)), 0) FROM json_each(i.transactions, '$.payments') p)
    END AS payments,
    CASE WHEN json_valid(i.transactions) THEN
      (SELECT COALESCE(SUM(CAST(json_extract(r.value, '$.amount_minor') AS INTEGER)), 0) FROM json_each(i.transactions, '$.refunds') r)
    END AS refunds,
    CASE WHEN json_valid(i.transactions) THEN
      (SELECT COUNT(*) FROM json_each(i.transactions, '$.payments') p
       WHERE CAST(json_extract(p.value, '$.amount_minor') AS INTEGER) <= 0
          OR CAST(CAST(json_extract(p.value, '$.amount_minor') AS INTEGER) AS TEXT) <> json_extract(p.value, '$.amount_minor'))
      + (SELECT COUNT(*) FROM json_each(i.transactions, '$.refunds') r
       WHERE CAST(json_extract(r.value, '$.amount_minor') AS INTEGER) <= 0
          OR CAST(CAST(json_extract(r.value, '$.amount_minor') AS INTEGER) AS TEXT) <> json_extract(r.value, '$.amount_minor'))
    END AS bad_amounts,
    CASE WHEN json_valid(i.transactions) THEN
      (SELECT COALESCE(SUM(CAST(json_extract(p.value, '$.gratuity_minor') AS INTEGER)), 0) FROM json_each(i.transactions, '$.payments') p)
    END AS tips,
    CASE WHEN json_valid(i.transactions) THEN
      (SELECT COUNT(*) FROM json_each(i.transactions, '$.payments') p WHERE json_extract(p.value, '$.type') <> 'PLATFORM')
    END AS external_payments,
    CASE WHEN json_valid(i.transactions) THEN
      (SELECT COUNT(*) FROM json_each(i.transactions, '$.refunds') r WHERE json_extract(r.value, '$.type') <> 'PLATFORM')
    END AS external_refunds
  FROM invoices i
  WHERE ${scope('i.account_id', accountId)}`;

/**
 * The same on PostgreSQL. payctl_try_jsonb (migration 0004's PostgreSQL statements) is NULL for text
 * that is not JSON, as json_valid is false on SQLite; a list that is not an array counts as empty.
 * An amount is read as SQLite's CAST reads it (the integer part of a number, else 0), and is bad
 * unless it is a positive integer written plainly.
 */
const postgresInvoiceTotals = (accountId: string | null) => {
  const list = (key: string) => sql.raw(`CASE WHEN jsonb_typeof(j.t -> '${key}') = 'array' THEN j.t -> '${key}' ELSE '[]'::jsonb END`);
  const amount = (element: string, key: string) =>
    sql.raw(`CASE WHEN ${element} ->> '${key}' ~ '^ *-?[0-9]+([.][0-9]*)? *$' THEN trunc((${element} ->> '${key}')::numeric)::bigint ELSE 0 END`);
  const badAmount = (element: string) =>
    sql.raw(`(${element} ->> 'amount_minor') !~ '^[1-9][0-9]*$'`);
  return sql`
  SELECT i.id AS invoice_id, i.account_id, i.status, i.total_minor, i.paid_minor, i.refunded_minor,
    CASE WHEN j.t IS NOT NULL THEN
      (SELECT COALESCE(SUM(${amount('p', 'amount_minor')}), 0) FROM jsonb_array_elements(${list('payments')}) p)
    END AS payments,
    CASE WHEN j.t IS NOT NULL THEN
      (SELECT COALESCE(SUM(${amount('r', 'amount_minor')}), 0) FROM jsonb_array_elements(${list('refunds')}) r)
    END AS refunds,
    CASE WHEN j.t IS NOT NULL THEN
      (SELECT COUNT(*) FROM jsonb_array_elements(${list('payments')}) p WHERE ${badAmount('p')})
      + (SELECT COUNT(*) FROM jsonb_array_elements(${list('refunds')}) r WHERE ${badAmount('r')})
    END AS bad_amounts,
    CASE WHEN j.t IS NOT NULL THEN
      (SELECT COALESCE(SUM(${amount('p', 'gratuity_minor')}), 0) FROM jsonb_array_elements(${list('payments')}) p)
    END AS tips,
    CASE WHEN j.t IS NOT NULL THEN
      (SELECT COUNT(*) FROM jsonb_array_elements(${list('payments')}) p WHERE p ->> 'type' <> 'PLATFORM')
    END AS external_payments,
    CASE WHEN j.t IS NOT NULL THEN
      (SELECT COUNT(*) FROM jsonb_array_elements(${list('refunds')}) r WHERE r ->> 'type' <> 'PLATFORM')
    END AS external_refunds
  FROM invoices i CROSS JOIN LATERAL (SELECT payctl_try_jsonb(i.transactions) AS t) j
  WHERE ${scope('i.account_id', accountId)}`;
};

/** Statuses of an invoice with nothing paid: never sent, sent and waiting, or cancelled. */
const NOTHING_PAID = sql`('DRAFT', 'SCHEDULED', 'SENT', 'UNPAID', 'CANCELLED', 'PAYMENT_PENDING')`;

export const INVOICE_CHECKS: readonly AuditCheck[] = [
  {
    name: 'invoice-amounts-match-transactions',
    description: "an invoice's paid and refunded amounts equal the sums of its recorded payments and refunds, each a positive whole number of minor units",
    tables: ['invoices'],
    query: (accountId, dialect) => sql`
      SELECT invoice_id, account_id, paid_minor, refunded_minor, payments, refunds, bad_amounts FROM (${invoiceTotals(accountId, dialect)}) t
      WHERE payments IS NULL OR refunds IS NULL OR paid_minor <> payments OR refunded_minor <> refunds OR bad_amounts > 0`,
  },
  {
    name: 'invoice-refunds-within-payments',
    description: 'refunds never exceed payments, and payments less their tips never exceed the invoice total',
    tables: ['invoices'],
    query: (accountId, dialect) => sql`
      SELECT invoice_id, account_id, total_minor, paid_minor, refunded_minor, tips FROM (${invoiceTotals(accountId, dialect)}) t
      WHERE refunded_minor < 0 OR paid_minor < 0 OR refunded_minor > paid_minor OR paid_minor - COALESCE(tips, 0) > total_minor
        OR COALESCE(tips, 0) < 0`,
  },
  {
    name: 'invoice-status-matches-amounts',
    description:
      "an invoice's status is what its payments and refunds make it: nothing paid (DRAFT, SCHEDULED, SENT, UNPAID, CANCELLED), " +
      'PARTIALLY_PAID, PAID (every payment through the platform) or MARKED_AS_PAID, PARTIALLY_REFUNDED, REFUNDED (every refund through the platform) or MARKED_AS_REFUNDED',
    tables: ['invoices'],
    query: (accountId, dialect) => sql`
      SELECT invoice_id, account_id, status, expected, total_minor, paid_minor, refunded_minor FROM (
        SELECT t.*, CASE
          WHEN refunded_minor > 0 AND refunded_minor < paid_minor THEN 'PARTIALLY_REFUNDED'
          WHEN refunded_minor > 0 THEN CASE WHEN external_refunds > 0 THEN 'MARKED_AS_REFUNDED' ELSE 'REFUNDED' END
          WHEN paid_minor = 0 THEN 'nothing paid'
          WHEN paid_minor < total_minor THEN 'PARTIALLY_PAID'
          ELSE CASE WHEN external_payments > 0 THEN 'MARKED_AS_PAID' ELSE 'PAID' END
        END AS expected
        FROM (${invoiceTotals(accountId, dialect)}) t
      ) s
      WHERE external_payments IS NOT NULL
        AND ((expected = 'nothing paid' AND status NOT IN ${NOTHING_PAID}) OR (expected <> 'nothing paid' AND status <> expected))`,
  },
];

/**
 * Reads trust the stored invoice body (it is written only from validated input), so the audit is
 * where it is checked against the invoice schema, a thousand rows at a time.
 */
export const STORED_INVOICE_CHECK: CodeCheck = {
  name: 'stored-invoices-valid',
  description: 'every stored invoice body passes the invoice schema (reads do not validate it again), and its view template is its own',
  tables: ['invoices'],
  async run(db: Db, accountId: string | null) {
    const problems: Array<Record<string, unknown>> = [];
    let after = '';
    for (;;) {
      let query = db
        .selectFrom('invoices')
        .select(['account_id', 'id', 'body', 'currency', 'view_template'])
        .where('id', '>', after)
        .orderBy('id')
        .limit(1_000);
      if (accountId !== null) query = query.where('account_id', '=', accountId);
      const rows = await query.execute();
      for (const row of rows) {
        // List pages are written from the view template, so it must be the body's.
        const problem = storedInvoiceProblem(row.body) ?? viewTemplateProblem(row);
        if (problem !== undefined) problems.push({ account_id: row.account_id, invoice_id: row.id, problem });
      }
      const last = rows.at(-1);
      if (!last || rows.length < 1_000) return problems;
      after = last.id;
    }
  },
};
