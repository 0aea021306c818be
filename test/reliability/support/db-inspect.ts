// Read-only SQL on a server's database, whichever the backend: a SQLite file (better-sqlite3,
// read-only, beside the running server) or a PostgreSQL URL (pg). Queries are written once with
// `?` placeholders; integers come back as numbers on both (test values are far below 2^53).

import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';

export interface DbInspector {
  readonly dialect: 'sqlite' | 'postgres';
  /** Every row of `query` (placeholders `?`, in order). */
  all<T = Record<string, unknown>>(query: string, ...params: unknown[]): Promise<T[]>;
  /** The first column of every row. */
  column<T = unknown>(query: string, ...params: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

export const isPostgresUrl = (target: string): boolean => /^postgres(ql)?:\/\//.test(target);

/** `?` placeholders as PostgreSQL's `$1, $2, ...` (the queries here hold no `?` inside literals). */
export function numberedPlaceholders(query: string): string {
  let index = 0;
  return query.replace(/\?/g, () => `$${(index += 1)}`);
}

/** int8 and numeric as numbers (COUNT, SUM and the BIGINT money columns); other types as pg parses them. */
const NUMERIC_TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === 20 || oid === 1700) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format as 'text');
  }) as pg.CustomTypesConfig['getTypeParser'],
};

/** Opens `target` (a SQLite file path or a postgres:// URL) for reading. */
export async function openInspector(target: string): Promise<DbInspector> {
  if (isPostgresUrl(target)) {
    const client = new pg.Client({ connectionString: target, types: NUMERIC_TYPES });
    await client.connect();
    const all = async <T>(query: string, ...params: unknown[]) => (await client.query(numberedPlaceholders(query), params)).rows as T[];
    return {
      dialect: 'postgres',
      all,
      async column<T>(query: string, ...params: unknown[]) {
        const result = await client.query({ text: numberedPlaceholders(query), values: params, rowMode: 'array' });
        return result.rows.map((row: unknown[]) => row[0] as T);
      },
      close: () => client.end(),
    };
  }
  const db = new BetterSqlite3(target, { readonly: true, fileMustExist: true });
  return {
    dialect: 'sqlite',
    all: async <T>(query: string, ...params: unknown[]) => db.prepare(query).all(...params) as T[],
    column: async <T>(query: string, ...params: unknown[]) => db.prepare(query).pluck().all(...params) as T[],
    close: async () => {
      db.close();
    },
  };
}

/** Runs `work` with an inspector on `target`, closed after. */
export async function inspect<T>(target: string, work: (db: DbInspector) => Promise<T>): Promise<T> {
  const db = await openInspector(target);
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

/** A JSON column as an object: text on SQLite, text or json(b) on PostgreSQL. */
export function jsonColumn<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}
