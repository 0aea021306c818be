// Ledger audit checks: each is one SQL query returning the rows that break an invariant.

import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/schema.js';
import type { DialectName } from '../db/storage.js';
import { INVOICE_CHECKS } from './invoice-checks.js';
import { PAYOUT_CHECKS } from './payout-checks.js';

export interface AuditCheck {
  name: string;
  description: string;
  /** Tables that must exist for the check to apply (domains not installed are skipped). */
  tables: readonly string[];
  /** Rows violating the invariant, for one account or (null) all accounts, in the database's SQL. */
  query(accountId: string | null, dialect: DialectName): RawBuilder<Record<string, unknown>>;
}

/** A check SQL cannot state (it needs the application's schema): rows that break it. */
export interface CodeCheck {
  name: string;
  description: string;
  tables: readonly string[];
  run(db: Db, accountId: string | null): Promise<Array<Record<string, unknown>>>;
}

const scope = (column: string, accountId: string | null) =>
  accountId === null ? sql`1 = 1` : sql`${sql.ref(column)} = ${accountId}`;

export const AUDIT_CHECKS: readonly AuditCheck[] = [
  {
    name: 'balances-match-movements',
    description: 'each balance equals the sum of its movements',
    tables: ['balances', 'balance_movements'],
    query: (accountId) => sql`
      SELECT b.account_id, b.currency, b.available_minor AS balance, COALESCE(m.total, 0) AS movements
      FROM balances b
      LEFT JOIN (SELECT account_id, currency, SUM(amount_minor) AS total FROM balance_movements GROUP BY account_id, currency) m
        ON m.account_id = b.account_id AND m.currency = b.currency
      WHERE ${scope('b.account_id', accountId)} AND b.available_minor <> COALESCE(m.total, 0)`,
  },
  {
    name: 'movements-have-balances',
    description: 'every currency with movements has a balance row',
    tables: ['balances', 'balance_movements'],
    query: (accountId) => sql`
      SELECT m.account_id, m.currency, SUM(m.amount_minor) AS movements
      FROM balance_movements m
      LEFT JOIN balances b ON b.account_id = m.account_id AND b.currency = m.currency
      WHERE ${scope('m.account_id', accountId)} AND b.account_id IS NULL
      GROUP BY m.account_id, m.currency`,
  },
  {
    name: 'captured-matches-captures',
    description: "an authorization's captured amount equals the sum of its live captures (not declined or failed)",
    tables: ['authorizations', 'captures'],
    query: (accountId) => sql`
      SELECT a.id AS authorization_id, a.captured_minor, COALESCE(c.total, 0) AS captures
      FROM authorizations a
      LEFT JOIN (SELECT authorization_id, SUM(amount_minor) AS total FROM captures
                 WHERE status NOT IN ('DECLINED', 'FAILED') GROUP BY authorization_id) c ON c.authorization_id = a.id
      WHERE ${scope('a.account_id', accountId)} AND a.captured_minor <> COALESCE(c.total, 0)`,
  },
  {
    name: 'captures-within-limit',
    description: 'captures never exceed 115% of the authorized amount (the default limit)',
    tables: ['authorizations'],
    query: (accountId) => sql`
      SELECT id AS authorization_id, amount_minor, captured_minor FROM authorizations
      WHERE ${scope('account_id', accountId)} AND captured_minor * 100 > amount_minor * 115`,
  },
  {
    name: 'refunded-matches-refunds',
    description: "a capture's refunded amount equals the sum of its live refunds, and never exceeds the capture",
    tables: ['captures', 'refunds'],
    query: (accountId) => sql`
      SELECT c.id AS capture_id, c.amount_minor, c.refunded_minor, COALESCE(r.total, 0) AS refunds
      FROM captures c
      LEFT JOIN (SELECT capture_id, SUM(amount_minor) AS total FROM refunds
                 WHERE status NOT IN ('FAILED', 'CANCELLED') GROUP BY capture_id) r ON r.capture_id = c.id
      WHERE ${scope('c.account_id', accountId)}
        AND (c.refunded_minor <> COALESCE(r.total, 0) OR c.refunded_minor > c.amount_minor)`,
  },
  {
    name: 'capture-breakdown-adds-up',
    description: 'gross = fee + net on completed captures',
    tables: ['captures'],
    query: (accountId) => sql`
      SELECT id AS capture_id, amount_minor, fee_minor, net_minor FROM captures
      WHERE ${scope('account_id', accountId)} AND status IN ('COMPLETED', 'PARTIALLY_REFUNDED', 'REFUNDED')
        AND fee_minor + net_minor <> amount_minor`,
  },
  {
    name: 'refund-breakdown-adds-up',
    description: 'gross = fee + net on refunds',
    tables: ['refunds'],
    query: (accountId) => sql`
      SELECT id AS refund_id, amount_minor, fee_minor, net_minor FROM refunds
      WHERE ${scope('account_id', accountId)} AND fee_minor + net_minor <> amount_minor`,
  },
  {
    name: 'refunds-belong-to-their-capture-account',
    description: 'a refund and its capture belong to the same merchant',
    tables: ['captures', 'refunds'],
    query: (accountId) => sql`
      SELECT r.id AS refund_id, r.account_id, c.account_id AS capture_account FROM refunds r
      JOIN captures c ON c.id = r.capture_id
      WHERE ${scope('r.account_id', accountId)} AND r.account_id <> c.account_id`,
  },
  {
    name: 'fault-rule-counts-match',
    description: "an account's count of fault rules equals its rules (read with the token, a count of 0 makes requests skip the rules)",
    tables: ['accounts', 'fault_rules'],
    query: (accountId) => sql`
      SELECT a.id AS account_id, a.fault_rule_count AS counted, COALESCE(r.total, 0) AS rules
      FROM accounts a
      LEFT JOIN (SELECT account_id, COUNT(*) AS total FROM fault_rules GROUP BY account_id) r ON r.account_id = a.id
      WHERE ${scope('a.id', accountId)} AND a.fault_rule_count <> COALESCE(r.total, 0)`,
  },
  {
    name: 'journal-counts-match',
    description: "a merchant's count of request journal entries equals its entries (retention deletes the oldest by it)",
    tables: ['request_journal', 'request_journal_counts'],
    query: (accountId) => sql`
      SELECT COALESCE(c.account_id, j.account_id) AS account_id, COALESCE(c.entries, 0) AS counted, COALESCE(j.total, 0) AS entries
      FROM request_journal_counts c
      FULL JOIN (SELECT account_id, COUNT(*) AS total FROM request_journal GROUP BY account_id) j ON j.account_id = c.account_id
      WHERE (${scope('c.account_id', accountId)} OR ${scope('j.account_id', accountId)}) AND COALESCE(c.entries, 0) <> COALESCE(j.total, 0)`,
  },
  ...INVOICE_CHECKS,
  ...PAYOUT_CHECKS,
];
