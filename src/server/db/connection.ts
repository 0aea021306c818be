// Opens the SQLite file with the pragmas durability depends on, and refuses to run without them.

import BetterSqlite3 from 'better-sqlite3';
import { Kysely } from 'kysely';
import { BetterSqliteDialect } from './driver.js';
import { checkPrivateDirectory, checkPrivateFiles, createPrivateFile, makePrivateDirectory } from './file-modes.js';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type { Database } from './schema.js';

export const MEMORY_DB = ':memory:';

export interface OpenedDatabase {
  sqlite: BetterSqlite3.Database;
  db: Kysely<Database>;
  path: string;
  /** Files or folders found open to other users (db/file-modes.ts), for the log. */
  warnings: string[];
}

export interface OpenOptions {
  /**
   * The file is in payctl's own data folder (no --db given): a folder or file found open to other
   * users is made private. Elsewhere such a file is only warned about.
   */
  ownedDirectory?: boolean;
}

export class DatabaseSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatabaseSetupError';
  }
}

function readPragma(sqlite: BetterSqlite3.Database, name: string): unknown {
  return sqlite.pragma(name, { simple: true });
}

/** Sets and reads back the pragmas; throws if SQLite did not take one of them. */
export function applyPragmas(sqlite: BetterSqlite3.Database, inMemory: boolean): void {
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // A 4 MB page cache (better-sqlite3 builds SQLite with 16 MB): the operating system caches the
  // file anyway. Under the benchmark's write load the 16 MB filled up and stayed in RSS; with 4 MB
  // captures and invoice pages at 100,000 invoices measured the same (npm run bench).
  sqlite.pragma('cache_size = -4000');
  // Savepoint journals in memory. Group commit runs each request in a savepoint (group-commit.ts);
  // SQLite keeps the original of every page a savepoint changes, and past 64 KB it moved that journal
  // to a temporary file for the rest of the transaction: under the capture load ~80% of the server's
  // pwrite calls went there, not to the WAL. Durability is the WAL's alone: a savepoint journal only
  // serves ROLLBACK TO inside a transaction that a crash discards anyway.
  sqlite.pragma('temp_store = MEMORY');
  const expected: Array<[string, unknown]> = [
    ['journal_mode', inMemory ? 'memory' : 'wal'],
    ['synchronous', 2n],
    ['foreign_keys', 1n],
    ['busy_timeout', 5000n],
    ['temp_store', 2n],
  ];
  for (const [name, want] of expected) {
    const got = readPragma(sqlite, name);
    const normalised = typeof got === 'number' ? BigInt(got) : got;
    if (normalised !== want) {
      throw new DatabaseSetupError(
        `SQLite pragma ${name} is ${String(got)}, expected ${String(want)}; refusing to run without it`,
      );
    }
  }
}

let addon: string | null | undefined;

/**
 * better-sqlite3's native addon, by path. Left to itself, better-sqlite3 finds it with the
 * `bindings` package, which reads a stack trace and tries a dozen paths (~2-5 ms of every start),
 * and which cannot find it at all from the server bundle, where better-sqlite3's JavaScript is
 * inlined (scripts/bundle-server.mjs). Looked for where `bindings` looks first (build/Debug, then
 * build/Release); with neither, better-sqlite3 searches as usual.
 */
function sqliteAddon(): string | undefined {
  if (addon === undefined) {
    const resolveFromHere = createRequire(import.meta.url).resolve;
    addon = null;
    for (const build of ['Debug', 'Release']) {
      try {
        addon = resolveFromHere(`better-sqlite3/build/${build}/better_sqlite3.node`);
        break;
      } catch {
        // not this build
      }
    }
  }
  return addon ?? undefined;
}

/** The database file and the two SQLite keeps beside it. */
export const databaseFiles = (path: string): string[] => [path, `${path}-wal`, `${path}-shm`];

export function openDatabase(path: string, options: OpenOptions = {}): OpenedDatabase {
  const inMemory = path === MEMORY_DB;
  const warnings: string[] = [];
  if (!inMemory) {
    makePrivateDirectory(dirname(path));
    if (options.ownedDirectory === true) warnings.push(...checkPrivateDirectory(dirname(path)));
    // A new file starts 0600; SQLite gives the WAL and shared-memory files the database's mode.
    createPrivateFile(path);
    warnings.push(...checkPrivateFiles(databaseFiles(path), options.ownedDirectory === true));
  }
  const nativeBinding = sqliteAddon();
  const sqlite = new BetterSqlite3(path, nativeBinding === undefined ? {} : { nativeBinding });
  try {
    sqlite.defaultSafeIntegers(true);
    applyPragmas(sqlite, inMemory);
  } catch (error) {
    sqlite.close();
    throw error;
  }
  const db = new Kysely<Database>({ dialect: new BetterSqliteDialect(sqlite) });
  return { sqlite, db, path, warnings };
}

/** Checkpoints the WAL into the main file and closes. */
export async function closeDatabase(opened: OpenedDatabase): Promise<void> {
  await opened.db.destroy().catch(() => undefined);
  if (opened.sqlite.open) {
    if (opened.path !== MEMORY_DB) opened.sqlite.pragma('wal_checkpoint(TRUNCATE)');
    opened.sqlite.close();
  }
}
