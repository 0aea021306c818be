// Starting on an existing database: one written by a newer payctl is refused; the default app's
// credentials survive a restart, are replaced when the credentials file is lost or a secret is
// given, and can be fixed up front.

import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startServer } from '../../src/server/index.js';
import { startTestServer } from '../helpers/server.js';
import { credentialsFileOf, openStorageAt } from '../helpers/postgres.js';

describe('server start', () => {
  it('refuses a database written by a newer payctl, and keeps credentials across restarts', async () => {
    const first = await startTestServer();
    const { dbPath } = first;
    const credentials = first.server.defaultCredentials;
    await first.server.close();

    const second = await startServer({ dbPath, logLevel: 'silent' });
    expect(second.defaultCredentials).toEqual(credentials);
    expect(second.adminKey).toBe(first.adminKey);
    await second.close();

    const storage = await openStorageAt(dbPath);
    await storage.transaction({ name: 'test' }, (trx) =>
      trx.insertInto('schema_migrations').values({ id: 9999n, name: 'future', applied_at: '2030-01-01T00:00:00Z' }).execute(),
    );
    await storage.close();
    await expect(startServer({ dbPath, logLevel: 'silent' })).rejects.toThrow(/newer payctl/);
    await first.close().catch(() => undefined);
  });

  it('on restart: a lost credentials file means a new secret and a warning; a given secret replaces the stored one', async () => {
    const first = await startTestServer();
    const { dbPath } = first;
    const original = first.server.defaultCredentials;
    await first.server.close();
    const tokenStatus = async (url: string, clientId: string, secret: string) =>
      (
        await fetch(`${url}/v1/oauth2/token`, {
          method: 'POST',
          headers: {
            authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
            'content-type': 'application/x-www-form-urlencoded',
          },
          body: 'grant_type=client_credentials',
        })
      ).status;

    rmSync(credentialsFileOf(dbPath));
    const lines: string[] = [];
    const second = await startServer({ dbPath, logLevel: 'warn', logDestination: { write: (line) => void lines.push(line) } });
    try {
      expect(second.defaultCredentials.payer_id).toBe(original.payer_id);
      expect(second.defaultCredentials.client_id).toBe(original.client_id);
      expect(second.defaultCredentials.client_secret).not.toBe(original.client_secret);
      expect(lines.join('')).toMatch(/could not be recovered/);
      expect(await tokenStatus(second.url, original.client_id, original.client_secret)).toBe(401);
      expect(await tokenStatus(second.url, original.client_id, second.defaultCredentials.client_secret)).toBe(200);
      // A secret the server generated is stored as its SHA-256.
      const stored = await second.db.selectFrom('apps').select('secret_hash').where('client_id', '=', original.client_id).executeTakeFirstOrThrow();
      expect(stored.secret_hash).toBe(`sha256$${createHash('sha256').update(second.defaultCredentials.client_secret).digest('hex')}`);
    } finally {
      await second.close();
    }

    const third = await startServer({ dbPath, logLevel: 'silent', clientSecret: 'chosen-on-the-command-line' });
    try {
      expect(third.defaultCredentials.client_secret).toBe('chosen-on-the-command-line');
      expect(await tokenStatus(third.url, original.client_id, second.defaultCredentials.client_secret)).toBe(401);
      expect(await tokenStatus(third.url, original.client_id, 'chosen-on-the-command-line')).toBe(200);
      // A chosen secret (perhaps a weak one) gets scrypt.
      const stored = await third.db.selectFrom('apps').select('secret_hash').where('client_id', '=', original.client_id).executeTakeFirstOrThrow();
      expect(stored.secret_hash.startsWith('scrypt$')).toBe(true);
    } finally {
      await third.close();
    }
    // The file now remembers the chosen secret: the next start needs no flag and warns of nothing.
    const fourth = await startServer({ dbPath, logLevel: 'silent' });
    expect(fourth.defaultCredentials.client_secret).toBe('chosen-on-the-command-line');
    await fourth.close();
    await first.close().catch(() => undefined);
  });

  it('fixes the default app credentials when given', async () => {
    const t = await startTestServer({ clientId: 'ci-client', clientSecret: 'ci-secret', adminKey: 'ci-admin' });
    try {
      expect(t.server.defaultCredentials.client_id).toBe('ci-client');
      // A chosen (here weak) secret on a fresh database is stored with scrypt, never as a SHA-256.
      const stored = await t.server.db.selectFrom('apps').select('secret_hash').where('client_id', '=', 'ci-client').executeTakeFirstOrThrow();
      expect(stored.secret_hash).toMatch(/^scrypt\$/);
      expect(t.adminKey).toBe('ci-admin');
      const token = await t.tokenFor('ci-client', 'ci-secret');
      expect((await t.request('GET', '/_payctl/whoami', { token })).body.client_id).toBe('ci-client');
    } finally {
      await t.close();
    }
  });
});
