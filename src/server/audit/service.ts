// The ledger audit: runs every invariant check and, for the whole database, SQLite's own checks.

import { sql } from 'kysely';
import type { Db } from '../db/schema.js';
import { AUDIT_CHECKS, type CodeCheck } from './checks.js';
import { STORED_INVOICE_CHECK } from './invoice-checks.js';

const CODE_CHECKS: readonly CodeCheck[] = [STORED_INVOICE_CHECK];

export interface AuditResult {
  ok: boolean;
  scope: 'account' | 'all';
  checks: Array<{ name: string; description: string; violations: Array<Record<string, string>> }>;
  skipped: string[];
}

/** Values as text, so that bigint amounts survive JSON. */
function printable(row: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(row).map(([key, value]) => [key, value === null ? 'null' : String(value)]));
}

export async function runAudit(db: Db, accountId: string | null): Promise<AuditResult> {
  const tables = new Set(
    (await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table'`.execute(db)).rows.map((row) => row.name),
  );
  const result: AuditResult = { ok: true, scope: accountId === null ? 'all' : 'account', checks: [], skipped: [] };
  // SQL checks, then the checks that need the application's code; both are rows that break a rule.
  const checks: CodeCheck[] = [
    ...AUDIT_CHECKS.map((check) => ({ ...check, run: async () => (await check.query(accountId).execute(db)).rows })),
    ...CODE_CHECKS,
  ];
  for (const check of checks) {
    if (!check.tables.every((table) => tables.has(table))) {
      result.skipped.push(check.name);
      continue;
    }
    const rows = (await check.run(db, accountId)).map(printable);
    result.checks.push({ name: check.name, description: check.description, violations: rows.slice(0, 100) });
    if (rows.length > 0) result.ok = false;
  }
  if (accountId === null) {
    const integrity = (await sql<{ integrity_check: string }>`PRAGMA integrity_check`.execute(db)).rows.map((row) => ({ result: String(row.integrity_check) }));
    const integrityOk = integrity.length === 1 && integrity[0]?.result === 'ok';
    result.checks.push({ name: 'sqlite-integrity', description: 'PRAGMA integrity_check is ok', violations: integrityOk ? [] : integrity });
    const foreignKeys = (await sql<Record<string, unknown>>`PRAGMA foreign_key_check`.execute(db)).rows.map(printable);
    result.checks.push({ name: 'foreign-keys', description: 'PRAGMA foreign_key_check finds nothing', violations: foreignKeys });
    if (!integrityOk || foreignKeys.length > 0) result.ok = false;
  }
  return result;
}
