// Applies the numbered migrations and refuses a database written by a newer payctl.

import type BetterSqlite3 from 'better-sqlite3';
import { MIGRATIONS } from './migrations/index.js';
import { DatabaseSetupError } from './connection.js';

export function latestMigrationId(): number {
  return MIGRATIONS.reduce((max, migration) => Math.max(max, migration.id), 0);
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
    const newest = Math.max(0, ...applied);
    if (newest > latestMigrationId()) {
      throw new DatabaseSetupError(
        `this database was written by a newer payctl (schema version ${newest}; this payctl knows up to ${latestMigrationId()}). ` +
          'Upgrade payctl, or point --db at another file.',
      );
    }
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
