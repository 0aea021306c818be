// A database's plan for a compiled statement, its steps one a line: what a test of an index matches
// against. SQLite: EXPLAIN QUERY PLAN on the test server's file, opened read only. PostgreSQL:
// EXPLAIN on its own connection with sequential scans priced out (`enable_seqscan = off`), so that
// the plan shows whether an index can answer the statement at all, whatever the table's size.

import BetterSqlite3 from 'better-sqlite3';
import type { CompiledQuery } from 'kysely';
import { withAdmin } from './postgres.js';

type Compiled = Pick<CompiledQuery, 'sql' | 'parameters'>;

export function sqlitePlan(dbPath: string, query: Compiled): string {
  const reader = new BetterSqlite3(dbPath, { readonly: true });
  try {
    const plan = reader.prepare(`EXPLAIN QUERY PLAN ${query.sql}`).all(...(query.parameters as unknown[])) as Array<{ detail: string }>;
    return plan.map((step) => step.detail).join('\n');
  } finally {
    reader.close();
  }
}

export async function postgresPlan(url: string, query: Compiled): Promise<string> {
  return withAdmin(async (client) => {
    await client.query('SET enable_seqscan = off');
    const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${query.sql}`, query.parameters as unknown[]);
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  }, url);
}
