// Eight `payctl serve` started at the same moment on one new database file (replicas starting
// together): every one starts, and they agree on one default merchant and one set of credentials
// (client id and secret, admin key, the secret the webhook signing key is sealed under), which the
// credentials file and the "local" profile both hold.

import { spawn } from 'node:child_process';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_CREDENTIALS, REPO, startServe, tempDir, type ServeProcess } from './support/serve-process.js';

const SERVERS = 8;
const dirs: string[] = [];

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

interface CredentialsFile {
  payer_id: string;
  client_id: string;
  client_secret: string;
  admin_key: string;
  signing_key_secret: string;
}

async function tokenStatus(server: ServeProcess, clientId: string, clientSecret: string): Promise<number> {
  const answer = await fetch(`${server.url}/v1/oauth2/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
  return answer.status;
}

/** The built CLI, as a user runs it: exit code and stdout. */
function payctl(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [join(REPO, 'bin', 'run.js'), ...args], {
      cwd: REPO,
      env: { PATH: process.env.PATH, CI: '1', NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('exit', (code) => done({ code, stdout, stderr }));
  });
}

function readRows<T>(dbPath: string, query: string): T[] {
  const db = new Database(dbPath, { readonly: true });
  try {
    return db.prepare(query).all() as T[];
  } finally {
    db.close();
  }
}

describe(`${SERVERS} servers started at once on one new database file`, () => {
  // Generated: the first start's secret and admin key must reach the others through the credentials
  // file. Chosen: every start brings the same ones, and a chosen secret is checked with scrypt.
  it.each([
    { credentials: 'generated', chosen: undefined },
    { credentials: 'chosen with --client-id, --client-secret and --admin-key', chosen: DEFAULT_CREDENTIALS },
  ])('all start, with one default merchant and one set of credentials that every server accepts ($credentials)', async ({ chosen }) => {
    const dir = tempDir('concurrent-start');
    const configDir = tempDir('concurrent-start-config');
    dirs.push(dir, configDir);
    const dbPath = join(dir, 'payctl.db');

    const starts = await Promise.allSettled(
      Array.from({ length: SERVERS }, () => startServe({ dbPath, ...(chosen ? { credentials: chosen } : { generatedCredentials: true }), configDir, saveProfile: true, startTimeoutMs: 60_000 })),
    );
    const servers = starts.flatMap((start) => (start.status === 'fulfilled' ? [start.value] : []));
    try {
      const failures = starts.flatMap((start) => (start.status === 'rejected' ? [String(start.reason).slice(0, 300)] : []));
      console.log(`concurrent start: ${servers.length} of ${SERVERS} servers started`);
      expect(failures).toEqual([]);

      // One set of credentials: the 0600 file, every server's summary and the local profile agree.
      const credentialsPath = `${dbPath}.credentials.json`;
      expect(statSync(credentialsPath).mode & 0o777).toBe(0o600);
      const file = JSON.parse(readFileSync(credentialsPath, 'utf8')) as CredentialsFile;
      if (chosen) expect(file).toMatchObject({ client_id: chosen.clientId, client_secret: chosen.clientSecret, admin_key: chosen.adminKey });
      const printed = new Set(servers.map((server) => JSON.stringify([server.payerId, server.credentials])));
      expect([...printed]).toEqual([JSON.stringify([file.payer_id, { clientId: file.client_id, clientSecret: file.client_secret, adminKey: file.admin_key }])]);
      const config = JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')) as { profiles: Record<string, { base_url: string; client_id: string; client_secret: string }> };
      const local = config.profiles.local!;
      expect({ client_id: local.client_id, client_secret: local.client_secret }).toEqual({ client_id: file.client_id, client_secret: file.client_secret });
      expect(servers.map((server) => server.url)).toContain(local.base_url);

      // One first account, the one the file names.
      expect(readRows<{ id: string }>(dbPath, 'SELECT id FROM accounts')).toEqual([{ id: file.payer_id }]);

      // Every server accepts the client credentials and the admin key; a wrong secret is refused (the positive control).
      for (const server of servers) {
        expect(await tokenStatus(server, file.client_id, file.client_secret), server.stderr()).toBe(200);
        expect(await tokenStatus(server, file.client_id, `${file.client_secret}x`)).toBe(401);
        const audit = await fetch(`${server.url}/_payctl/audit`, { headers: { authorization: `Bearer ${file.admin_key}` } });
        expect(audit.status).toBe(200);
      }

      // One signing-key secret: the key the first server makes, every other server opens (none makes its own).
      for (const server of servers) {
        const cert = await fetch(`${server.url}/v1/notifications/certs/CERT-none`);
        expect(cert.status).toBe(404);
      }
      expect(readRows<{ id: string }>(dbPath, 'SELECT id FROM webhook_signing_keys')).toHaveLength(1);
      for (const server of servers) expect(server.stderr()).not.toContain('could not be opened');

      // payctl sandbox audit is clean: the merchant's books through the local profile, and every account with the admin key.
      const env = { HOME: configDir, PAYCTL_CONFIG_DIR: configDir };
      const merchantAudit = await payctl(['sandbox', 'audit', '--json', '--profile', 'local'], env);
      expect(merchantAudit.code, merchantAudit.stderr).toBe(0);
      expect((JSON.parse(merchantAudit.stdout) as { ok: boolean }).ok).toBe(true);
      const fullAudit = await payctl(['sandbox', 'audit', '--all', '--json', '--profile', 'local'], { ...env, PAYCTL_ADMIN_KEY: file.admin_key });
      expect(fullAudit.code, fullAudit.stderr).toBe(0);
      expect((JSON.parse(fullAudit.stdout) as { ok: boolean }).ok).toBe(true);
    } finally {
      await Promise.all(servers.map((server) => server.kill('SIGTERM')));
    }
  }, 180_000);
});
