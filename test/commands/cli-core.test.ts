// The CLI core end to end: the built binary against the real server on a temp SQLite file.

import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type CliResult, runCli, useCliServer } from './cli-harness.js';

const server = useCliServer(
  [
    'api',
    'auth:login',
    'auth:logout',
    'auth:status',
    'auth:token',
    'sandbox:clock',
    'sandbox:reset',
    'sandbox:accounts:create',
  ],
  'payctl-cli-config-',
  { server: {} },
);

function parseStdout<T>(result: CliResult): T {
  try {
    return JSON.parse(result.stdout) as T;
  } catch {
    throw new Error(`stdout is not JSON (exit ${result.code}):\n${result.stdout}\nstderr:\n${result.stderr}`);
  }
}

describe('payctl auth status', () => {
  it('--json reports the profile, credentials, merchant and token expiry', async () => {
    const result = await server.cli('auth', 'status', '--json');
    expect(result.code, result.stderr).toBe(0);
    const status = parseStdout<Record<string, unknown>>(result);
    const whoami = await server.harness.request('GET', '/_payctl/whoami');
    const creds = server.harness.server.defaultCredentials;
    expect(status).toMatchObject({
      profile: 'default',
      base_url: server.harness.url,
      client_id: creds.client_id,
      app_id: whoami.body.app_id,
      merchant: { payer_id: creds.payer_id, email: creds.email },
    });
    expect(status.app_id).toMatch(/\S/);
    expect(Object.keys(status).sort()).toEqual(['app_id', 'base_url', 'client_id', 'merchant', 'profile', 'token_expires_at']);
    expect(Date.parse(String(status.token_expires_at))).toBeGreaterThan(Date.now() + 60_000);
    expect(result.stdout).not.toContain(creds.client_secret);
  });

  it('fails with exit 4 on a bad secret even when a token for the client id is cached', async () => {
    const warm = await server.cli('auth', 'status', '--json');
    expect(warm.code).toBe(0);
    const badSecret = 'definitely-not-the-secret';
    const result = await runCli(['auth', 'status'], { env: { ...server.env, PAYCTL_CLIENT_SECRET: badSecret } });
    expect(result.code).toBe(4);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/AUTHENTICATION_FAILURE|invalid_client/);
    expect(result.stderr).not.toContain(badSecret);
  });

  it('fails with exit 2 naming `payctl auth login` when there are no credentials', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'payctl-cli-empty-'));
    try {
      const result = await runCli(['auth', 'status'], { env: { PAYCTL_CONFIG_DIR: empty } });
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain('payctl auth login');
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('payctl api', () => {
  it('GET /_payctl/clock prints the exact JSON body when piped', async () => {
    const result = await server.cli('api', 'GET', '/_payctl/clock');
    expect(result.code, result.stderr).toBe(0);
    const clock = parseStdout<{ payer_id: string; offset_seconds: number; now: string }>(result);
    expect(clock.payer_id).toBe(server.harness.server.defaultCredentials.payer_id);
    expect(typeof clock.offset_seconds).toBe('number');
    expect(Number.isNaN(Date.parse(clock.now))).toBe(false);
    expect(result.stdout).toBe(JSON.stringify(JSON.parse(result.stdout)));
  });

  it('exits 3 on an unknown capture, with the error body on stderr and nothing on stdout', async () => {
    const result = await server.cli('api', 'GET', '/v2/payments/captures/NOPE');
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(JSON.parse(result.stderr)).toMatchObject({ name: expect.stringMatching(/NOT_FOUND|INVALID_RESOURCE_ID/) });
  });

  it('--json puts the error document on stderr with the status', async () => {
    const result = await server.cli('api', 'GET', '/v2/payments/captures/NOPE', '--json');
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(JSON.parse(result.stderr)).toMatchObject({ status: 404, debug_id: expect.any(String) });
  });

  it('exits 2 on a body the service rejects as invalid', async () => {
    const result = await server.cli('api', 'POST', '/_payctl/clock', '--data', '{"advance_seconds":-5}');
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('advance_seconds');
  });

  it('exits 2 on an unknown flag, before any request', async () => {
    const result = await server.cli('api', 'GET', '/_payctl/clock', '--no-such-flag');
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('--no-such-flag');
  });
});

describe('payctl auth login without a terminal', () => {
  it('exits 2 at once naming --client-secret instead of waiting for input', async () => {
    const fresh = mkdtempSync(join(tmpdir(), 'payctl-cli-login-'));
    try {
      const result = await runCli(['auth', 'login', '--base-url', server.harness.url, '--client-id', 'someone'], {
        env: { PAYCTL_CONFIG_DIR: fresh },
        timeoutMs: 15_000,
      });
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain('--client-secret');
      expect(result.stderr).not.toContain('--client-id ');
      expect(result.elapsedMs).toBeLessThan(10_000);
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });

  it('saves a verified profile (0600), which later commands use, and logout forgets the secret', async () => {
    const fresh = mkdtempSync(join(tmpdir(), 'payctl-cli-login-'));
    const creds = server.harness.server.defaultCredentials;
    try {
      const login = await runCli(
        ['auth', 'login', '--base-url', server.harness.url, '--client-id', creds.client_id, '--client-secret', creds.client_secret, '--profile', 'ci', '--json'],
        { env: { PAYCTL_CONFIG_DIR: fresh } },
      );
      expect(login.code, login.stderr).toBe(0);
      expect(parseStdout(login)).toMatchObject({ profile: 'ci', base_url: server.harness.url, client_id: creds.client_id });
      expect(login.stdout).not.toContain(creds.client_secret);
      const configFile = join(fresh, 'config.json');
      expect(statSync(configFile).mode & 0o777).toBe(0o600);

      const status = await runCli(['auth', 'status', '--json'], { env: { PAYCTL_CONFIG_DIR: fresh } });
      expect(status.code, status.stderr).toBe(0);
      expect(parseStdout(status)).toMatchObject({ profile: 'ci', merchant: { payer_id: creds.payer_id } });

      const logout = await runCli(['auth', 'logout'], { env: { PAYCTL_CONFIG_DIR: fresh } });
      expect(logout.code).toBe(0);
      expect(readFileSync(configFile, 'utf8')).not.toContain(creds.client_secret);
      const after = await runCli(['auth', 'status'], { env: { PAYCTL_CONFIG_DIR: fresh } });
      expect(after.code).toBe(2);
      expect(after.stderr).toContain('payctl auth login');
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });

  it('refuses a wrong secret with exit 4 and saves nothing', async () => {
    const fresh = mkdtempSync(join(tmpdir(), 'payctl-cli-login-'));
    try {
      const result = await runCli(
        ['auth', 'login', '--base-url', server.harness.url, '--client-id', server.harness.server.defaultCredentials.client_id, '--client-secret', 'wrong-secret-123'],
        { env: { PAYCTL_CONFIG_DIR: fresh } },
      );
      expect(result.code).toBe(4);
      expect(result.stdout).toBe('');
      const profiles = await runCli(['auth', 'status'], { env: { PAYCTL_CONFIG_DIR: fresh } });
      expect(profiles.code).toBe(2);
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });
});

describe('payctl sandbox', () => {
  it('clock advance 1d moves the offset forward by 86400 seconds', async () => {
    const before = await server.cli('sandbox', 'clock', '--json');
    expect(before.code, before.stderr).toBe(0);
    const start = parseStdout<{ offset_seconds: number }>(before).offset_seconds;
    const advanced = await server.cli('sandbox', 'clock', 'advance', '1d', '--json');
    expect(advanced.code, advanced.stderr).toBe(0);
    expect(parseStdout<{ offset_seconds: number }>(advanced).offset_seconds).toBe(start + 86_400);
    // The cached token lives in real time: it still works after the clock moved.
    const after = await server.cli('sandbox', 'clock', '--json');
    expect(after.code, after.stderr).toBe(0);
    expect(parseStdout<{ offset_seconds: number }>(after).offset_seconds).toBe(start + 86_400);
  });

  it('clock refuses a malformed duration with exit 2', async () => {
    const result = await server.cli('sandbox', 'clock', 'advance', '3 weeks');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('not a duration');
  });

  it('reset without a terminal and without --yes exits 2 saying to pass --yes', async () => {
    const result = await server.cli('sandbox', 'reset');
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('--yes');
  });

  it('accounts create prints the new credentials once, and they work', async () => {
    const created = await runCli(['sandbox', 'accounts', 'create', '--email', 'shop@example.com', '--json'], {
      env: { ...server.env, PAYCTL_ADMIN_KEY: server.harness.adminKey },
    });
    expect(created.code, created.stderr).toBe(0);
    const account = parseStdout<{ payer_id: string; email: string; client_id: string; client_secret: string }>(created);
    expect(account.email).toBe('shop@example.com');
    expect(created.stderr).toMatch(/secret/i);
    const status = await runCli(['auth', 'status', '--json'], {
      env: { ...server.env, PAYCTL_CLIENT_ID: account.client_id, PAYCTL_CLIENT_SECRET: account.client_secret },
    });
    expect(status.code, status.stderr).toBe(0);
    expect(parseStdout(status)).toMatchObject({ merchant: { payer_id: account.payer_id, email: 'shop@example.com' } });
  });

  it('accounts create without an admin key exits 2 naming the flag and the server.env variable', async () => {
    const result = await server.cli('sandbox', 'accounts', 'create');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--admin-key');
    expect(result.stderr).toContain('PAYCTL_ADMIN_KEY');
  });
});
