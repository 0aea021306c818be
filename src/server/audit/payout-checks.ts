// Payout invariants: batch totals against their items, and each item's money against the ledger
// (charged once when it settled, credited back once when it was returned).

import { sql } from 'kysely';
import type { AuditCheck } from './checks.js';

const scope = (column: string, accountId: string | null) =>
  accountId === null ? sql`1 = 1` : sql`${sql.ref(column)} = ${accountId}`;

/**
 * Item statuses whose amount and fee left the sender's balance: settled to the receiver, waiting
 * to be claimed, held, or returned later (a RETURNED item was UNCLAIMED, so charged first).
 * Stated here rather than imported from the payouts domain so that the audit checks the code
 * instead of repeating it.
 */
const CHARGED = sql`('SUCCESS', 'UNCLAIMED', 'ONHOLD', 'RETURNED')`;

/** Per (item, account, currency): how many movements of each payout kind, and their sums. */
const itemMovements = (accountId: string | null) => sql`
  SELECT reference_id, account_id, currency,
    SUM(CASE WHEN kind = 'PAYOUT' THEN 1 ELSE 0 END) AS payouts,
    SUM(CASE WHEN kind = 'PAYOUT' THEN amount_minor ELSE 0 END) AS payout_total,
    SUM(CASE WHEN kind = 'PAYOUT_FEE' THEN 1 ELSE 0 END) AS fees,
    SUM(CASE WHEN kind = 'PAYOUT_FEE' THEN amount_minor ELSE 0 END) AS fee_total,
    SUM(CASE WHEN kind = 'PAYOUT_RETURN' THEN 1 ELSE 0 END) AS returns,
    SUM(CASE WHEN kind = 'PAYOUT_RETURN' THEN amount_minor ELSE 0 END) AS return_total
  FROM balance_movements
  WHERE ${scope('account_id', accountId)} AND kind IN ('PAYOUT', 'PAYOUT_FEE', 'PAYOUT_RETURN')
  GROUP BY reference_id, account_id, currency`;

/** Every payout item with its movements (zeros when it has none in its own account and currency). */
const itemsWithMovements = (accountId: string | null) => sql`
  SELECT i.id AS item_id, i.batch_id, i.account_id, i.status, i.currency, i.amount_minor, i.fee_minor,
    COALESCE(m.payouts, 0) AS payouts, COALESCE(m.payout_total, 0) AS payout_total,
    COALESCE(m.fees, 0) AS fees, COALESCE(m.fee_total, 0) AS fee_total,
    COALESCE(m.returns, 0) AS returns, COALESCE(m.return_total, 0) AS return_total
  FROM payout_items i
  LEFT JOIN (${itemMovements(accountId)}) m ON m.reference_id = i.id AND m.account_id = i.account_id AND m.currency = i.currency
  WHERE ${scope('i.account_id', accountId)}`;

export const PAYOUT_CHECKS: readonly AuditCheck[] = [
  {
    name: 'payout-batch-totals-match-items',
    description:
      "a batch's item count equals its items, and a single-currency batch's amount equals the sum of its items (a mixed batch has no single amount)",
    tables: ['payout_batches', 'payout_items'],
    query: (accountId) => sql`
      SELECT b.id AS batch_id, b.account_id, b.item_count, b.currency, b.amount_minor,
        COALESCE(i.items, 0) AS items, i.total AS items_total, COALESCE(i.currencies, 0) AS currencies, i.other_accounts
      FROM payout_batches b
      LEFT JOIN (
        SELECT pi.batch_id, COUNT(*) AS items, SUM(pi.amount_minor) AS total, COUNT(DISTINCT pi.currency) AS currencies,
          MIN(pi.currency) AS currency, SUM(CASE WHEN pi.account_id <> pb.account_id THEN 1 ELSE 0 END) AS other_accounts
        FROM payout_items pi JOIN payout_batches pb ON pb.id = pi.batch_id
        WHERE ${scope('pb.account_id', accountId)}
        GROUP BY pi.batch_id
      ) i ON i.batch_id = b.id
      WHERE ${scope('b.account_id', accountId)}
        AND (b.item_count <> COALESCE(i.items, 0)
          OR COALESCE(i.other_accounts, 0) > 0
          OR (b.currency IS NOT NULL AND (i.currencies <> 1 OR i.currency <> b.currency OR b.amount_minor IS NULL OR b.amount_minor <> i.total))
          OR (b.currency IS NULL AND (b.amount_minor IS NOT NULL OR COALESCE(i.currencies, 0) < 2)))`,
  },
  {
    name: 'payout-items-charged-once',
    description:
      'an item that settled (SUCCESS, UNCLAIMED, ONHOLD, or RETURNED later) took its amount and fee from the sender once each; any other item took nothing',
    tables: ['payout_items', 'balance_movements'],
    query: (accountId) => sql`
      SELECT item_id, batch_id, account_id, status, amount_minor, fee_minor, payouts, payout_total, fees, fee_total
      FROM (${itemsWithMovements(accountId)}) t
      WHERE CASE WHEN status IN ${CHARGED}
        THEN payouts <> 1 OR payout_total <> -amount_minor OR fees <> (CASE WHEN fee_minor > 0 THEN 1 ELSE 0 END) OR fee_total <> -fee_minor
        ELSE payouts <> 0 OR fees <> 0 END`,
  },
  {
    name: 'payout-returns-credited-once',
    description: 'a RETURNED item gave its amount and fee back to the sender exactly once; no other item was credited back',
    tables: ['payout_items', 'balance_movements'],
    query: (accountId) => sql`
      SELECT item_id, batch_id, account_id, status, amount_minor, fee_minor, returns, return_total
      FROM (${itemsWithMovements(accountId)}) t
      WHERE CASE WHEN status = 'RETURNED'
        THEN returns <> 1 OR return_total <> amount_minor + fee_minor
        ELSE returns <> 0 END`,
  },
  {
    name: 'payout-movements-have-items',
    description: 'every payout, payout fee and payout return movement belongs to a payout item of the same account and currency',
    tables: ['payout_items', 'balance_movements'],
    query: (accountId) => sql`
      SELECT m.seq AS movement_seq, m.account_id, m.currency, m.kind, m.amount_minor, m.reference_id
      FROM balance_movements m
      LEFT JOIN payout_items i ON i.id = m.reference_id AND i.account_id = m.account_id AND i.currency = m.currency
      WHERE ${scope('m.account_id', accountId)} AND m.kind IN ('PAYOUT', 'PAYOUT_FEE', 'PAYOUT_RETURN') AND i.id IS NULL`,
  },
];
