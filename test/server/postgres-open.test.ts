// Opening PostgreSQL storage, without a server: an old server is refused with a clear message, and
// neither that message nor a connection failure shows the URL's password.

import { Kysely, PostgresDialect, type PostgresPoolClient } from 'kysely';
import { describe, expect, it } from 'vitest';
import { checkServer, openPostgresStorage, redactedUrl } from '../../src/server/db/postgres-storage.js';
import type { Database } from '../../src/server/db/schema.js';

/** A Kysely whose every query answers `rows` (a pool that never connects anywhere). */
function answering(rows: unknown[]): Kysely<Database> {
  const client = { query: async () => ({ rows, command: 'SELECT' as const, rowCount: rows.length }), release: () => undefined };
  const pool = { connect: async () => client as unknown as PostgresPoolClient, end: async () => undefined };
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

const URL_WITH_PASSWORD = 'postgres://payctl:s3cret-pw@db.example.test:5432/payctl?sslmode=require';

describe('opening PostgreSQL storage', () => {
  it('refuses a server older than 15, naming its version and not the password', async () => {
    const db = answering([{ num: '140011', text: '14.11 (Debian 14.11-1)' }]);
    const checking = checkServer(db, URL_WITH_PASSWORD);
    await expect(checking).rejects.toThrow('PostgreSQL 15 or later is required; postgres://payctl:***@db.example.test:5432/payctl?sslmode=require runs 14.11 (Debian 14.11-1)');
  });

  it('accepts 15 and later (the positive control)', async () => {
    await expect(checkServer(answering([{ num: '150004', text: '15.4' }]), URL_WITH_PASSWORD)).resolves.toBeUndefined();
    await expect(checkServer(answering([{ num: '170000', text: '17.0' }]), URL_WITH_PASSWORD)).resolves.toBeUndefined();
  });

  it('says where it could not connect, without the password', async () => {
    // Port 1 on the loopback: refused at once.
    const opening = openPostgresStorage('postgres://payctl:s3cret-pw@127.0.0.1:1/payctl', '2026-01-01T00:00:00Z');
    await expect(opening).rejects.toThrow(/^could not connect to PostgreSQL at postgres:\/\/payctl:\*\*\*@127\.0\.0\.1:1\/payctl: /);
    await expect(opening).rejects.not.toThrow(/s3cret/);
  });

  it('shows a URL without a password as it is', () => {
    expect(redactedUrl('postgres://payctl@db:5432/payctl')).toBe('postgres://payctl@db:5432/payctl');
  });

  it('hides a password given as a parameter of the URL (the pg driver reads password= and sslpassword=)', () => {
    const shown = redactedUrl('postgres://payctl@db:5432/payctl?password=hunter2&sslmode=verify-full&sslpassword=keypass');
    expect(shown).not.toContain('hunter2');
    expect(shown).not.toContain('keypass');
    expect(new URL(shown).searchParams.get('sslmode')).toBe('verify-full');
    expect(new URL(shown).searchParams.get('password')).toBe('***');
  });
});
