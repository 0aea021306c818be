// SQLite's plan for a compiled statement (EXPLAIN QUERY PLAN on the test server's file, opened read
// only), its steps one a line: what a test of an index matches against.

import BetterSqlite3 from 'better-sqlite3';
import type { CompiledQuery } from 'kysely';

export function sqlitePlan(dbPath: string, query: Pick<CompiledQuery, 'sql' | 'parameters'>): string {
  const reader = new BetterSqlite3(dbPath, { readonly: true });
  try {
    const plan = reader.prepare(`EXPLAIN QUERY PLAN ${query.sql}`).all(...(query.parameters as unknown[])) as Array<{ detail: string }>;
    return plan.map((step) => step.detail).join('\n');
  } finally {
    reader.close();
  }
}
