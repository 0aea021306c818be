// Other local users must not read the server's files. Under umask 022 the default data folder was
// created 0755 and payctl.db, -wal and -shm 0644, and the webhook signing key's PEM private key sat
// in the database: any local user could read every merchant's data and forge webhook signatures.
// Now, whatever the umask: the data folder 0700, every database, WAL, shared-memory and credentials
// file 0600 (also under a --db path), a wider existing file is warned about, and the private key is
// sealed in the database under a secret kept in the credentials file.

import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPrivateKey } from '../../src/server/notifications/signing.js';
import { startReceiver, waitUntil, type Receiver, type ReceivedRequest } from '../server/webhooks-support.js';
import { DEFAULT_CREDENTIALS, startServe, tempDir, type ServeProcess } from './support/serve-process.js';

const UMASK = 0o022;
const previousUmask = process.umask(UMASK);
const figures: string[] = [];

type Delivery = ReceivedRequest;
let receiver: Receiver;
let receiverUrl: string;

beforeAll(async () => {
  receiver = await startReceiver();
  receiverUrl = `${receiver.url}/hooks`;
});

afterAll(async () => {
  process.umask(previousUmask);
  await receiver.close();
  console.log(`file modes under umask 0${UMASK.toString(8)}: ${figures.join('; ')}`);
});

/** The certificate a delivery was signed under (the port changes between starts). */
const certIdOf = (delivery: Delivery): string => new URL(String(delivery.headers['paypal-cert-url'])).pathname;
const modeOf = (path: string): string => `0${(statSync(path).mode & 0o777).toString(8)}`;
const filesOf = (dbPath: string): string[] => [dbPath, `${dbPath}-wal`, `${dbPath}-shm`, `${dbPath}.credentials.json`];

/** Whether a PEM private key is anywhere in the database or its WAL. */
function privateKeyInTheClear(dbPath: string): boolean {
  return [dbPath, `${dbPath}-wal`].some((file) => existsSync(file) && readFileSync(file).includes('PRIVATE KEY'));
}

/** Simulates an event to the receiver and waits for it: the signing key exists (and is used) after this. */
async function signedDelivery(server: ServeProcess): Promise<Delivery> {
  const tokenAnswer = await fetch(`${server.url}/v1/oauth2/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${server.credentials.clientId}:${server.credentials.clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
  const token = ((await tokenAnswer.json()) as { access_token: string }).access_token;
  const simulated = await fetch(`${server.url}/v1/notifications/simulate-event`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: `${receiverUrl}/${randomUUID()}`, event_type: 'PAYMENT.CAPTURE.COMPLETED' }),
  });
  expect(simulated.status).toBe(202);
  const id = ((await simulated.json()) as { id: string }).id;
  await waitUntil(() => receiver.received.some((delivery) => delivery.body.includes(id)), 20_000, 'the simulated event');
  const delivery = receiver.received.find((candidate) => candidate.body.includes(id))!;
  // The signature verifies against the server's certificate: the sealed key is the one in use.
  const verified = await fetch(`${server.url}/v1/notifications/verify-webhook-signature`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      auth_algo: delivery.headers['paypal-auth-algo'],
      cert_url: delivery.headers['paypal-cert-url'],
      transmission_id: delivery.headers['paypal-transmission-id'],
      transmission_sig: delivery.headers['paypal-transmission-sig'],
      transmission_time: delivery.headers['paypal-transmission-time'],
      webhook_id: 'WEBHOOK_ID',
      webhook_event: JSON.parse(delivery.body),
    }),
  });
  expect(await verified.json()).toEqual({ verification_status: 'SUCCESS' });
  return delivery;
}

describe(`under umask 0${UMASK.toString(8)}`, () => {
  it('the default data folder is 0700 and its database, WAL, shared-memory and credentials files 0600; no private key in the clear', async () => {
    const data = join(tempDir('modes'), 'data', 'payctl');
    const dbPath = join(data, 'payctl.db');
    const server = await startServe({ dbPath, defaultDataDir: true });
    try {
      const delivery = await signedDelivery(server);
      expect(modeOf(data)).toBe('0700');
      for (const file of filesOf(dbPath)) expect(`${file} ${modeOf(file)}`).toBe(`${file} 0600`);
      expect(privateKeyInTheClear(dbPath)).toBe(false);
      const secret = (JSON.parse(readFileSync(`${dbPath}.credentials.json`, 'utf8')) as { signing_key_secret?: string }).signing_key_secret;
      expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
      figures.push(`default folder ${modeOf(data)}, ${filesOf(dbPath).map((file) => `${file.slice(data.length + 1)} ${modeOf(file)}`).join(', ')}`);

      // The same key after a restart (its secret is remembered in the credentials file).
      await server.kill('SIGTERM');
      const again = await startServe({ dbPath, defaultDataDir: true });
      try {
        expect(certIdOf(await signedDelivery(again))).toBe(certIdOf(delivery));
      } finally {
        await again.kill('SIGTERM');
      }
    } finally {
      await server.kill('SIGTERM');
    }
  });

  it('a --db path in a new folder gets the same modes', async () => {
    const folder = join(tempDir('modes-db'), 'given', 'nested');
    const dbPath = join(folder, 'merchants.db');
    const server = await startServe({ dbPath });
    try {
      await signedDelivery(server);
      expect(modeOf(folder)).toBe('0700');
      for (const file of filesOf(dbPath)) expect(`${file} ${modeOf(file)}`).toBe(`${file} 0600`);
      expect(privateKeyInTheClear(dbPath)).toBe(false);
    } finally {
      await server.kill('SIGTERM');
    }
  });

  it('an existing wider file: under --db it is warned about and left as set; in the default folder it is made 0600', async () => {
    const given = join(tempDir('modes-wide'), 'wide.db');
    const first = await startServe({ dbPath: given });
    await first.kill('SIGTERM');
    chmodSync(given, 0o644);
    const warned = await startServe({ dbPath: given });
    try {
      await waitUntil(() => warned.stderr().includes('readable by other users'), 10_000, 'the warning');
      expect(warned.stderr()).toContain(given);
      expect(modeOf(given)).toBe('0644');
    } finally {
      await warned.kill('SIGTERM');
    }

    // As an older payctl left the default folder: 0755 with a 0644 database.
    const data = join(tempDir('modes-old'), 'payctl');
    mkdirSync(data, { mode: 0o755 });
    chmodSync(data, 0o755);
    const dbPath = join(data, 'payctl.db');
    const old = await startServe({ dbPath });
    await old.kill('SIGTERM');
    chmodSync(dbPath, 0o644);
    writeFileSync(`${dbPath}-shm`, Buffer.alloc(0), { mode: 0o644 });
    chmodSync(`${dbPath}-shm`, 0o644);
    const tightened = await startServe({ dbPath, defaultDataDir: true });
    try {
      await waitUntil(() => tightened.stderr().includes('is now 0600'), 10_000, 'the warning');
      expect(modeOf(data)).toBe('0700');
      for (const file of filesOf(dbPath)) expect(`${file} ${modeOf(file)}`).toBe(`${file} 0600`);
    } finally {
      await tightened.kill('SIGTERM');
    }
  });

  it('a private key an older payctl stored in the clear is sealed in place at the next start', async () => {
    const dbPath = join(tempDir('modes-legacy'), 'payctl.db');
    const first = await startServe({ dbPath });
    const delivery = await signedDelivery(first);
    await first.kill('SIGTERM');
    // Put the key back as an older payctl kept it: the PEM in the clear.
    const secret = Buffer.from((JSON.parse(readFileSync(`${dbPath}.credentials.json`, 'utf8')) as { signing_key_secret: string }).signing_key_secret, 'base64url');
    const sqlite = new BetterSqlite3(dbPath);
    const row = sqlite.prepare('SELECT id, private_key_pem FROM webhook_signing_keys').get() as { id: string; private_key_pem: string };
    const pem = openPrivateKey(row.private_key_pem, row.id, secret);
    expect(pem).toContain('PRIVATE KEY');
    sqlite.prepare('UPDATE webhook_signing_keys SET private_key_pem = ? WHERE id = ?').run(pem, row.id);
    sqlite.pragma('wal_checkpoint(TRUNCATE)');
    sqlite.close();
    // Positive control for the scan below.
    expect(privateKeyInTheClear(dbPath)).toBe(true);

    const next = await startServe({ dbPath, credentials: DEFAULT_CREDENTIALS });
    try {
      expect(privateKeyInTheClear(dbPath)).toBe(false);
      expect(next.stderr()).toContain('now sealed');
      // The same key, not a new one: receivers that pinned its certificate still verify.
      expect(certIdOf(await signedDelivery(next))).toBe(certIdOf(delivery));
    } finally {
      await next.kill('SIGTERM');
    }
    expect(privateKeyInTheClear(dbPath)).toBe(false);
  });
});
