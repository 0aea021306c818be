// New database files start as a copy of the build's schema template (src/server/db/seed.ts).

import BetterSqlite3 from 'better-sqlite3';
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { closeDatabase, openDatabase } from '../../src/server/db/connection.js';
import { migrate } from '../../src/server/db/migrate.js';
import { MIGRATIONS } from '../../src/server/db/migrations/index.js';
import { seedFromTemplate, writeSchemaTemplate } from '../../src/server/db/seed.js';
import { startServer } from '../../src/server/index.js';
import { onPostgres } from '../helpers/postgres.js';

/** A path another process creates just after the seeder looked for it (the race the final link settles). */
const race = vi.hoisted(() => ({ path: undefined as string | undefined }));
vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  return {
    ...actual,
    existsSync: (path: import('node:fs').PathLike) => {
      if (path !== race.path) return actual.existsSync(path);
      race.path = undefined;
      actual.writeFileSync(path, 'written by another process');
      return false;
    },
  };
});

const BUILT_TEMPLATE = resolve('dist/schema-template.db');

/**
 * A copy of the build's template to read: opening a WAL-mode file, even read-only, leaves -shm and
 * -wal files beside it, and those must not appear in dist/ (which is what the package ships).
 */
function builtTemplateCopy(): string {
  const copy = join(tempDir(), 'schema-template.db');
  copyFileSync(BUILT_TEMPLATE, copy);
  return copy;
}
const TEMPLATE_STAMP = '2001-02-03T04:05:06Z';
// The ids in order (a branch's migration may be numbered past one that lands from another branch).
const ALL_MIGRATIONS = MIGRATIONS.map((migration) => migration.id);

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'payctl-seed-'));
  dirs.push(dir);
  return dir;
}

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

interface Shape {
  objects: unknown[];
  migrations: Array<{ id: bigint; applied_at: string }>;
  pageSize: unknown;
  userVersion: unknown;
  integrity: unknown;
}

function shapeOf(file: string): Shape {
  const sqlite = new BetterSqlite3(file, { readonly: true });
  try {
    sqlite.defaultSafeIntegers(true);
    return {
      objects: sqlite.prepare('SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name').all(),
      migrations: sqlite.prepare('SELECT id, applied_at FROM schema_migrations ORDER BY id').all() as Shape['migrations'],
      pageSize: sqlite.pragma('page_size', { simple: true }),
      userVersion: sqlite.pragma('user_version', { simple: true }),
      integrity: sqlite.pragma('integrity_check', { simple: true }),
    };
  } finally {
    sqlite.close();
  }
}

/** A file made the way SQLite makes it without a template: opened, then migrated. */
async function migratedFile(dir: string): Promise<string> {
  const file = join(dir, 'migrated.db');
  const opened = openDatabase(file);
  migrate(opened.sqlite, TEMPLATE_STAMP);
  await closeDatabase(opened);
  return file;
}

/** Every table's rows, the migration records without their time. */
function rowsOf(file: string): Record<string, unknown[]> {
  const sqlite = new BetterSqlite3(file, { readonly: true });
  try {
    const tables = sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as Array<{ name: string }>;
    return Object.fromEntries(
      tables.map(({ name }) => [
        name,
        sqlite.prepare(name === 'schema_migrations' ? 'SELECT id, name FROM schema_migrations ORDER BY id' : `SELECT * FROM "${name}" ORDER BY rowid`).all(),
      ]),
    );
  } finally {
    sqlite.close();
  }
}

const stampsOf = (file: string) => [...new Set(shapeOf(file).migrations.map((row) => row.applied_at))];

// SQLite only (the SQLite half runs it): the schema template is a SQLite file; PostgreSQL databases are migrated.
describe.skipIf(onPostgres)('schema template', () => {
  it("the build's template holds exactly what migrating a new file makes: schema and rows", async () => {
    const dir = tempDir();
    const migratedPath = await migratedFile(dir);
    const built = shapeOf(builtTemplateCopy());
    const migrated = shapeOf(migratedPath);
    expect(built.objects).toEqual(migrated.objects);
    expect(built.objects.length).toBeGreaterThan(50);
    expect(built.migrations.map((row) => Number(row.id))).toEqual(ALL_MIGRATIONS);
    expect([built.pageSize, built.userVersion, built.integrity]).toEqual([migrated.pageSize, migrated.userVersion, 'ok']);
    // The rows migrations write (a cursor, say) and no others; their own records differ only in time.
    expect(rowsOf(builtTemplateCopy())).toEqual(rowsOf(migratedPath));
  });

  it('a new database starts as a copy: the server runs on it, with a mode of its own, and keeps it across restarts', async () => {
    const dir = tempDir();
    const template = join(dir, 'template.db');
    await writeSchemaTemplate(template, TEMPLATE_STAMP);
    // An installed package may be read-only: the copy still gets the mode of a new database (0600).
    chmodSync(template, 0o444);
    const dbPath = join(dir, 'data', 'payctl.db');
    const first = await startServer({ dbPath, schemaTemplate: template, logLevel: 'silent' });
    try {
      expect((await fetch(`${first.url}/_payctl/health`)).status).toBe(200);
      const token = await fetch(`${first.url}/v1/oauth2/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${first.defaultCredentials.client_id}:${first.defaultCredentials.client_secret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: 'grant_type=client_credentials',
      });
      expect(token.status).toBe(200);
    } finally {
      await first.close();
    }
    expect(stampsOf(dbPath)).toEqual([TEMPLATE_STAMP]);
    expect(shapeOf(dbPath).objects).toEqual(shapeOf(template).objects);
    expect(statSync(dbPath).mode & 0o777).toBe(0o600);
    expect(readdirSync(join(dir, 'data')).filter((name) => name.endsWith('.seed'))).toEqual([]);

    const second = await startServer({ dbPath, schemaTemplate: template, logLevel: 'silent' });
    try {
      expect(second.defaultCredentials).toEqual(first.defaultCredentials);
    } finally {
      await second.close();
    }
  });

  it('never replaces a file that is there, nor seeds beside a leftover WAL file', async () => {
    const dir = tempDir();
    const template = join(dir, 'template.db');
    await writeSchemaTemplate(template, TEMPLATE_STAMP);
    const taken = join(dir, 'taken.db');
    writeFileSync(taken, 'someone else\'s file');
    expect(seedFromTemplate(taken, template)).toBe(false);
    expect(readFileSync(taken, 'utf8')).toBe('someone else\'s file');

    const orphan = join(dir, 'orphan.db');
    writeFileSync(`${orphan}-wal`, '');
    expect(seedFromTemplate(orphan, template)).toBe(false);
    expect(existsSync(orphan)).toBe(false);

    // Created by another process between the look and the copy: that file stays, the copy is dropped.
    const raced = join(dir, 'raced.db');
    race.path = raced;
    expect(seedFromTemplate(raced, template)).toBe(false);
    expect(race.path).toBeUndefined();
    expect(readFileSync(raced, 'utf8')).toBe('written by another process');
    expect(readdirSync(dir).filter((name) => name.endsWith('.seed'))).toEqual([]);

    expect(seedFromTemplate(':memory:', template)).toBe(false);
    const fresh = join(dir, 'fresh.db');
    expect(seedFromTemplate(fresh, template)).toBe(true);
    expect(seedFromTemplate(fresh, template)).toBe(false);
  });

  it('refuses a missing, foreign or truncated template: SQLite creates the file and migrations run as before', async () => {
    const dir = tempDir();
    const template = join(dir, 'template.db');
    await writeSchemaTemplate(template, TEMPLATE_STAMP);
    const truncated = join(dir, 'truncated.db');
    writeFileSync(truncated, readFileSync(template));
    truncateSync(truncated, statSync(template).size / 2);
    const foreign = join(dir, 'foreign.db');
    writeFileSync(foreign, Buffer.alloc(8192, 7));
    for (const bad of [join(dir, 'missing.db'), foreign, truncated]) {
      const target = join(dir, `from-${bad.split('/').at(-1)}`);
      expect(seedFromTemplate(target, bad)).toBe(false);
      expect(existsSync(target)).toBe(false);
    }

    const dbPath = join(dir, 'payctl.db');
    const server = await startServer({ dbPath, schemaTemplate: truncated, logLevel: 'silent' });
    try {
      expect((await fetch(`${server.url}/_payctl/health`)).status).toBe(200);
    } finally {
      await server.close();
    }
    expect(shapeOf(dbPath).migrations.map((row) => Number(row.id))).toEqual(ALL_MIGRATIONS);
    expect(stampsOf(dbPath)).not.toContain(TEMPLATE_STAMP);
  });

  it('brings a template older than this payctl up to date: migrations run on the copy', async () => {
    const dir = tempDir();
    // The oldest possible template: a database with no migration applied yet.
    const template = join(dir, 'empty.db');
    await closeDatabase(openDatabase(template));
    const dbPath = join(dir, 'payctl.db');
    expect(seedFromTemplate(dbPath, template)).toBe(true);
    const server = await startServer({ dbPath, schemaTemplate: template, logLevel: 'silent' });
    await server.close();
    expect(shapeOf(dbPath).migrations.map((row) => Number(row.id))).toEqual(ALL_MIGRATIONS);
    expect(shapeOf(dbPath).objects).toEqual(shapeOf(await migratedFile(dir)).objects);
  });
});
