import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  configPath,
  configTokenCache,
  currentProfileName,
  forgetSecret,
  getProfile,
  removeProfile,
  resolveCredentials,
  saveProfile,
  writeLocalProfile,
} from '../../src/lib/config.js';

const ENV_KEYS = ['PAYCTL_CONFIG_DIR', 'PAYCTL_PROFILE', 'PAYCTL_BASE_URL', 'PAYCTL_CLIENT_ID', 'PAYCTL_CLIENT_SECRET'];
let saved: Record<string, string | undefined>;
let dir: string;

beforeEach(() => {
  saved = Object.fromEntries(ENV_KEYS.map((key) => [key, process.env[key]]));
  for (const key of ENV_KEYS) delete process.env[key];
  dir = mkdtempSync(join(tmpdir(), 'payctl-config-'));
  process.env.PAYCTL_CONFIG_DIR = dir;
});

afterEach(() => {
  for (const key of ENV_KEYS) {
    if (saved[key] === undefined) delete process.env[key];
    else process.env[key] = saved[key];
  }
  rmSync(dir, { recursive: true, force: true });
});

const stored = { base_url: 'http://profile.test', client_id: 'profile-id', client_secret: 'profile-secret' };

describe('resolveCredentials precedence', () => {
  const cases: Array<{
    name: string;
    flags: Record<string, string>;
    env: Record<string, string>;
    expected: { base_url: string; client_id: string; client_secret: string };
  }> = [
    { name: 'profile only', flags: {}, env: {}, expected: stored },
    {
      name: 'env beats profile',
      flags: {},
      env: { PAYCTL_BASE_URL: 'http://env.test', PAYCTL_CLIENT_ID: 'env-id', PAYCTL_CLIENT_SECRET: 'env-secret' },
      expected: { base_url: 'http://env.test', client_id: 'env-id', client_secret: 'env-secret' },
    },
    {
      name: 'flags beat env',
      flags: { 'base-url': 'http://flag.test', 'client-id': 'flag-id', 'client-secret': 'flag-secret' },
      env: { PAYCTL_BASE_URL: 'http://env.test', PAYCTL_CLIENT_ID: 'env-id', PAYCTL_CLIENT_SECRET: 'env-secret' },
      expected: { base_url: 'http://flag.test', client_id: 'flag-id', client_secret: 'flag-secret' },
    },
    {
      name: 'field by field',
      flags: { 'client-id': 'flag-id' },
      env: { PAYCTL_CLIENT_SECRET: 'env-secret' },
      expected: { base_url: 'http://profile.test', client_id: 'flag-id', client_secret: 'env-secret' },
    },
  ];

  it.each(cases)('$name', ({ flags, env, expected }) => {
    saveProfile('default', stored);
    Object.assign(process.env, env);
    const resolved = resolveCredentials({ flags });
    expect(resolved).toEqual({ profile: 'default', ...expected });
  });

  it('picks the profile from --profile, then PAYCTL_PROFILE, then the current profile, then "default"', () => {
    saveProfile('default', stored);
    saveProfile('staging', { base_url: 'http://staging.test', client_id: 's', client_secret: 's' });
    saveProfile('prod', { base_url: 'http://prod.test', client_id: 'p', client_secret: 'p' }, { makeCurrent: true });
    saveProfile('ci', { base_url: 'http://ci.test', client_id: 'c', client_secret: 'c' });

    expect(resolveCredentials({ flags: {} }).base_url).toBe('http://prod.test');
    expect(currentProfileName()).toBe('prod');
    process.env.PAYCTL_PROFILE = 'ci';
    expect(resolveCredentials({ flags: {} }).base_url).toBe('http://ci.test');
    expect(resolveCredentials({ flags: { profile: 'staging' } })).toMatchObject({ profile: 'staging', base_url: 'http://staging.test' });
    delete process.env.PAYCTL_PROFILE;
    removeProfile('prod');
    expect(resolveCredentials({ flags: {} })).toMatchObject({ profile: 'default', base_url: 'http://profile.test' });
  });

  it('leaves out what no source has, and trims a trailing slash from the base URL', () => {
    const resolved = resolveCredentials({ flags: { 'base-url': 'http://x.test/' } });
    expect(resolved).toEqual({ profile: 'default', base_url: 'http://x.test' });
  });
});

describe('the config file', () => {
  it('is created with mode 0600 inside PAYCTL_CONFIG_DIR', () => {
    saveProfile('default', stored);
    const path = configPath();
    expect(path.startsWith(dir)).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('keeps base URL and client id but drops the secret on logout', () => {
    saveProfile('default', stored);
    expect(forgetSecret('default')).toEqual({ removed: true });
    expect(getProfile('default')).toEqual({ base_url: stored.base_url, client_id: stored.client_id });
    expect(forgetSecret('default')).toEqual({ removed: false });
  });
});

describe('writeLocalProfile', () => {
  const local = { base_url: 'http://127.0.0.1:5555', client_id: 'local-id', client_secret: 'local-secret' };

  it('makes local current when nothing is current', () => {
    expect(writeLocalProfile(local)).toEqual({ madeCurrent: true, current: 'local' });
    expect(currentProfileName()).toBe('local');
    expect(getProfile('local')).toEqual(local);
  });

  it('leaves another existing current profile alone', () => {
    saveProfile('prod', stored, { makeCurrent: true });
    expect(writeLocalProfile(local)).toEqual({ madeCurrent: false, current: 'prod' });
    expect(currentProfileName()).toBe('prod');
    expect(getProfile('local')).toEqual(local);
  });

  it('overwrites local when local is current', () => {
    writeLocalProfile(local);
    const next = { ...local, base_url: 'http://127.0.0.1:6666' };
    expect(writeLocalProfile(next)).toEqual({ madeCurrent: true, current: 'local' });
    expect(getProfile('local')).toEqual(next);
  });
});

describe('token cache', () => {
  const token = (expiresAt: number) => ({
    access_token: `A21.${expiresAt}`,
    expires_at: new Date(expiresAt).toISOString(),
    app_id: 'APP-1',
    scope: 'https://uri.payctl.dev/services/payments',
  });

  it('answers a token until 60 s before it expires, per (base URL, client id)', () => {
    let now = Date.parse('2030-01-01T00:00:00Z');
    const cache = configTokenCache(() => now);
    const expiresAt = now + 10 * 60_000;
    cache.set('http://a.test', 'id-1', token(expiresAt));

    expect(cache.get('http://a.test', 'id-1')?.access_token).toBe(`A21.${expiresAt}`);
    expect(cache.get('http://a.test', 'id-2')).toBeUndefined();
    expect(cache.get('http://b.test', 'id-1')).toBeUndefined();

    now = expiresAt - 61_000;
    expect(cache.get('http://a.test', 'id-1')).toBeDefined();
    now = expiresAt - 60_000;
    expect(cache.get('http://a.test', 'id-1')).toBeUndefined();
  });

  it('persists across cache instances and is cleared by delete and by logout', () => {
    const now = Date.now();
    saveProfile('default', stored);
    configTokenCache().set(stored.base_url, stored.client_id, token(now + 3_600_000));
    expect(configTokenCache().get(stored.base_url, stored.client_id)).toBeDefined();
    forgetSecret('default');
    expect(configTokenCache().get(stored.base_url, stored.client_id)).toBeUndefined();

    configTokenCache().set(stored.base_url, stored.client_id, token(now + 3_600_000));
    configTokenCache().delete(stored.base_url, stored.client_id);
    expect(configTokenCache().get(stored.base_url, stored.client_id)).toBeUndefined();
    expect(statSync(configPath()).mode & 0o777).toBe(0o600);
  });
});
