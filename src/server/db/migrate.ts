// Applies the numbered migrations and refuses a database written by a newer payctl.

import type BetterSqlite3 from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import { MIGRATIONS } from './migrations/index.js';
import { DatabaseSetupError } from './connection.js';
import type { Database } from './schema.js';

export function latestMigrationId(): number {
  return MIGRATIONS.reduce((max, migration) => Math.max(max, migration.id), 0);
}

/** Throws when the database has a migration this payctl does not know (a newer payctl wrote it). */
function refuseNewerSchema(applied: ReadonlySet<number>, target: string): void {
  const newest = Math.max(0, ...applied);
  if (newest > latestMigrationId()) {
    throw new DatabaseSetupError(
      `this database was written by a newer payctl (schema version ${newest}; this payctl knows up to ${latestMigrationId()}). ` +
        `Upgrade payctl, or point --db at another ${target}.`,
    );
  }
}

/**
 * Runs every migration not yet applied, all in one transaction: a database is upgraded to the
 * newest schema or not at all (a failing migration leaves it as the previous payctl left it), and a
 * fresh database costs one commit (one fsync) instead of one per migration. Synchronous on purpose:
 * it runs once at start, before the server accepts requests.
 */
export function migrate(sqlite: BetterSqlite3.Database, now: string): number[] {
  const upgrade = sqlite.transaction(() => {
    sqlite.exec(
      'CREATE TABLE IF NOT EXISTS schema_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)',
    );
    const applied = new Set(
      (sqlite.prepare('SELECT id FROM schema_migrations').all() as Array<{ id: bigint }>).map((row) => Number(row.id)),
    );
    refuseNewerSchema(applied, 'file');
    const ran: number[] = [];
    const record = sqlite.prepare('INSERT INTO schema_migrations (id, name, applied_at) VALUES (?, ?, ?)');
    for (const migration of MIGRATIONS) {
      if (applied.has(migration.id)) continue;
      for (const statement of migration.statements) sqlite.exec(statement);
      record.run(migration.id, migration.name, now);
      ran.push(migration.id);
    }
    return ran;
  });
  // IMMEDIATE: the write lock first, so that a second process starting on the same fresh file waits
  // (busy_timeout) and then finds everything applied, instead of failing between its read and write.
  return upgrade.immediate();
}

/**
 * PostgreSQL's migrations: the same numbered list (each migration's `postgres` statements where it
 * has them), in one transaction under a transaction-scoped advisory lock, so that replicas starting
 * together on a new database migrate it once: the others wait for the lock, then find it done.
 */
export async function migratePostgres(db: Kysely<Database>, now: string): Promise<number[]> {
  return db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(hashtext('payctl.migrate'))`.execute(trx);
    await sql`CREATE TABLE IF NOT EXISTS schema_migrations (id BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`.execute(trx);
    const rows = await trx.selectFrom('schema_migrations').select('id').execute();
    const applied = new Set(rows.map((row) => Number(row.id)));
    refuseNewerSchema(applied, 'database');
    const ran: number[] = [];
    for (const migration of MIGRATIONS) {
      if (applied.has(migration.id)) continue;
      for (const statement of migration.postgres ?? migration.statements) await sql.raw(statement).execute(trx);
      await trx.insertInto('schema_migrations').values({ id: BigInt(migration.id), name: migration.name, applied_at: now }).execute();
      ran.push(migration.id);
    }
    return ran;
  });
}
