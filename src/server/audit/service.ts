// The ledger audit: runs every invariant check and, for the whole database, the engine's own checks.

import type { Db } from '../db/schema.js';
import type { AuditEngine } from '../db/storage.js';
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

/** `db` is the root handle or a transaction; `engine` is the storage's (`deps.storage.audit`). */
export async function runAudit(db: Db, engine: AuditEngine, accountId: string | null): Promise<AuditResult> {
  const tables = await engine.tables(db);
  const result: AuditResult = { ok: true, scope: accountId === null ? 'all' : 'account', checks: [], skipped: [] };
  // SQL checks, then the checks that need the application's code; both are rows that break a rule.
  const checks: CodeCheck[] = [
    ...AUDIT_CHECKS.map((check) => ({ ...check, run: async () => (await check.query(accountId, engine.dialect).execute(db)).rows })),
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
    for (const check of await engine.engineChecks(db)) {
      result.checks.push(check);
      if (check.violations.length > 0) result.ok = false;
    }
  }
  return result;
}
