// An empty database of the backend under test, for migrations applied one at a time to rows as an
// older payctl wrote them: an in-memory SQLite file, or a PostgreSQL database of its own.

import Database from 'better-sqlite3';
import pg from 'pg';
import { postgresStatements } from '../../src/server/db/migrate.js';
import { MIGRATIONS } from '../../src/server/db/migrations/index.js';
import { emptyTestDatabase, onPostgres } from './postgres.js';

export interface MigrationTarget {
  exec(statement: string): Promise<void>;
  rows(query: string): Promise<Array<Record<string, unknown>>>;
  close(): Promise<void>;
}

export async function openMigrationTarget(prefix: string): Promise<MigrationTarget> {
  if (onPostgres) {
    const database = await emptyTestDatabase(prefix);
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    return {
      exec: async (statement) => void (await client.query(statement)),
      rows: async (query) => (await client.query(query)).rows as Array<Record<string, unknown>>,
      close: async () => {
        await client.end();
        await database.drop();
      },
    };
  }
  const sqlite = new Database(':memory:');
  return {
    exec: async (statement) => void sqlite.exec(statement),
    rows: async (query) => sqlite.prepare(query).all() as Array<Record<string, unknown>>,
    close: async () => void sqlite.close(),
  };
}

/** Migration `id`'s statements for the backend under test. */
export const migrationStatements = (id: number): readonly string[] => {
  const migration = MIGRATIONS.find((entry) => entry.id === id)!;
  return onPostgres ? postgresStatements(migration) : migration.statements;
};

/** Applies every migration numbered below `id`. */
export async function migrateBelow(target: MigrationTarget, id: number): Promise<void> {
  for (const migration of MIGRATIONS.filter((entry) => entry.id < id)) for (const statement of migrationStatements(migration.id)) await target.exec(statement);
}
