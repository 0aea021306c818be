// A server on PostgreSQL (the PostgreSQL run only), from a new empty database: token, order,
// authorization, capture, refund; a restart finds everything, with the same credentials; a server
// whose signing-key secret cannot open the stored key refuses to start and says what to do.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SigningKeys } from '../../src/server/notifications/signing.js';
import { startServer } from '../../src/server/index.js';
import { emptyTestDatabase, onPostgres, type TestDatabase } from '../helpers/postgres.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { authorize, capture, refund, usd } from './payments-helpers.js';

describe.runIf(onPostgres)('servers starting together on a new PostgreSQL database', () => {
  it('migrate and bootstrap once: all three serve the same merchant with the same credentials', async () => {
    const database = await emptyTestDatabase();
    const dir = mkdtempSync(join(tmpdir(), 'payctl-pg-together-'));
    const credentialsFile = join(dir, 'credentials.json');
    const started = await Promise.allSettled(
      [0, 1, 2].map(() => startServer({ dbPath: database.url, credentialsFile, logLevel: 'silent', config: { jobIntervalMs: 3_600_000 } })),
    );
    try {
      expect(started.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
      const servers = started.map((outcome) => (outcome as PromiseFulfilledResult<Awaited<ReturnType<typeof startServer>>>).value);
      const [first, ...others] = servers;
      for (const other of others) {
        expect(other.defaultCredentials).toEqual(first!.defaultCredentials);
        expect(other.adminKey).toBe(first!.adminKey);
      }
      const accounts = await first!.db.selectFrom('accounts').select('id').execute();
      expect(accounts).toHaveLength(1);
    } finally {
      for (const outcome of started) if (outcome.status === 'fulfilled') await outcome.value.close();
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.runIf(onPostgres)('a server on PostgreSQL', () => {
  let database: TestDatabase;
  let dir: string;
  let credentialsFile: string;
  let t: TestServer | undefined;

  beforeAll(async () => {
    database = await emptyTestDatabase();
    dir = mkdtempSync(join(tmpdir(), 'payctl-pg-smoke-'));
    credentialsFile = join(dir, 'credentials.json');
  });
  afterAll(async () => {
    await t?.close();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  let captureId = '';
  let first: TestServer;

  it('starts on a new database and takes a payment through to a refund', async () => {
    first = await startTestServer({ dbPath: database.url, credentialsFile, config: { jobIntervalMs: 3_600_000 } });
    t = first;
    expect(first.server.deps.storage.dialect).toBe('postgres');
    const authId = await authorize(first, '100.00');
    const captured = await capture(first, authId, { ...usd('60.00'), final_capture: false });
    expect(captured.status).toBe(200);
    captureId = captured.body.id;
    const refunded = await refund(first, captureId, usd('10.00'));
    expect(refunded.status).toBe(200);
    expect(refunded.body.status).toBe('COMPLETED');
    const shown = await first.request('GET', `/v2/payments/captures/${captureId}`);
    expect(shown.body.status).toBe('PARTIALLY_REFUNDED');
  });

  it('finds everything after a restart, with the same credentials', async () => {
    const credentials = first.merchant;
    const adminKey = first.adminKey;
    await first.close();
    t = undefined;
    const second = await startTestServer({ dbPath: database.url, credentialsFile, config: { jobIntervalMs: 3_600_000 } });
    t = second;
    expect(second.merchant.client_id).toBe(credentials.client_id);
    expect(second.merchant.client_secret).toBe(credentials.client_secret);
    expect(second.adminKey).toBe(adminKey);
    const shown = await second.request('GET', `/v2/payments/captures/${captureId}`);
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ id: captureId, status: 'PARTIALLY_REFUNDED', amount: { value: '60.00' } });
    const balances = await second.server.db.selectFrom('balances').select(['currency', 'available_minor']).execute();
    expect(balances).toHaveLength(1);
    expect(typeof balances[0]!.available_minor).toBe('bigint');
  });

  it('refuses to start when its signing-key secret cannot open the stored key', async () => {
    const running = t!;
    await new SigningKeys(running.server.deps.storage, () => new Date(), () => running.server.deps.signingKeySecret).current();
    const otherDir = mkdtempSync(join(tmpdir(), 'payctl-pg-smoke-other-'));
    try {
      const starting = startServer({ dbPath: database.url, credentialsFile: join(otherDir, 'credentials.json'), logLevel: 'silent' });
      await expect(starting).rejects.toThrow(/signing key stored in this database is sealed under another secret.*--credentials-file.*--signing-key-secret/);
      // It changed nothing on its way out: the default app's secret still works.
      expect(await running.tokenFor(running.merchant.client_id, running.merchant.client_secret)).toMatch(/./);
      // With the first server's secret it starts (the positive control).
      const again = await startServer({
        dbPath: database.url,
        credentialsFile: join(otherDir, 'credentials.json'),
        signingKeySecret: running.server.deps.signingKeySecret.toString('base64url'),
        clientId: running.merchant.client_id,
        clientSecret: running.merchant.client_secret,
        logLevel: 'silent',
        config: { jobIntervalMs: 3_600_000 },
      });
      await again.close();
    } finally {
      rmSync(otherDir, { recursive: true, force: true });
    }
  });
});
