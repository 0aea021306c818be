// Client-secret hashing: scrypt once per proven chosen secret, never a shortcut for a wrong one;
// SHA-256 for secrets the server generated.

import * as crypto from 'node:crypto';
import { beforeEach, describe, expect, it, vi } from 'vitest';

vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  const scrypt = actual.scrypt as (...args: unknown[]) => void;
  return { ...actual, scrypt: vi.fn((...args: unknown[]) => scrypt(...args)) };
});

const { hashGeneratedSecret, hashSecret, verifySecret } = await import('../../src/server/core/secrets.js');
const { newClientSecret } = await import('../../src/server/oauth/service.js');
const scrypt = vi.mocked(crypto.scrypt);

describe('verifySecret', () => {
  beforeEach(() => {
    scrypt.mockClear();
  });

  it('proves a secret with scrypt once; the same secret against the same hash then costs no scrypt', async () => {
    const stored = await hashSecret('first-secret');
    expect(scrypt).toHaveBeenCalledTimes(1);
    expect(await verifySecret('first-secret', stored)).toBe(true);
    expect(await verifySecret('first-secret', stored)).toBe(true);
    expect(scrypt).toHaveBeenCalledTimes(1);
  });

  it('runs the full scrypt for every wrong secret, even one sharing a prefix with a proven one', async () => {
    const stored = await hashSecret('second-secret');
    scrypt.mockClear();
    expect(await verifySecret('second-secre', stored)).toBe(false);
    expect(await verifySecret('second-secret-', stored)).toBe(false);
    expect(await verifySecret('', stored)).toBe(false);
    expect(scrypt).toHaveBeenCalledTimes(3);
    expect(await verifySecret('second-secret', stored)).toBe(true);
    expect(scrypt).toHaveBeenCalledTimes(3);
  });

  it('does not carry a proven secret over to another stored hash (changed credentials)', async () => {
    const before = await hashSecret('rotated');
    const after = await hashSecret('rotated-new');
    expect(await verifySecret('rotated', after)).toBe(false);
    expect(await verifySecret('rotated-new', before)).toBe(false);
    expect(await verifySecret('rotated', before)).toBe(true);
  });

  it('proves a secret it did not hash itself (a stored hash read from the database)', async () => {
    const stored = await hashSecret('from-disk');
    // A fresh module instance knows nothing of the hash above.
    vi.resetModules();
    const fresh = await import('../../src/server/core/secrets.js');
    scrypt.mockClear();
    expect(await fresh.verifySecret('from-disk', stored)).toBe(true);
    expect(await fresh.verifySecret('from-disk', stored)).toBe(true);
    expect(scrypt).toHaveBeenCalledTimes(1);
    expect(await fresh.verifySecret('not-it', 'plain-text-is-not-a-hash')).toBe(false);
  });
});

describe('generated secrets', () => {
  beforeEach(() => {
    scrypt.mockClear();
  });

  it('stores a generated secret as a SHA-256 and proves it with no scrypt, refusing near misses', async () => {
    const secret = newClientSecret();
    const stored = hashGeneratedSecret(secret);
    expect(stored).toBe(`sha256$${crypto.createHash('sha256').update(secret).digest('hex')}`);
    expect(stored).not.toContain(secret);
    expect(await verifySecret(secret, stored)).toBe(true);
    expect(await verifySecret(secret.slice(0, -1), stored)).toBe(false);
    expect(await verifySecret(`${secret}x`, stored)).toBe(false);
    expect(await verifySecret('', stored)).toBe(false);
    expect(await verifySecret(secret, 'sha256$abc')).toBe(false);
    expect(await verifySecret(secret, 'sha256$')).toBe(false);
    expect(scrypt).not.toHaveBeenCalled();
  });

  it('keeps the two schemes apart: a chosen secret is always scrypt, and each scheme proves only its own secret', async () => {
    const secret = newClientSecret();
    const slow = await hashSecret(secret);
    expect(slow).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(await verifySecret(secret, slow)).toBe(true);
    expect(await verifySecret(secret, hashGeneratedSecret(secret))).toBe(true);
    // A SHA-256 value planted where a scrypt hash belongs is not a valid scrypt hash, and the reverse.
    expect(await verifySecret(secret, `scrypt$${hashGeneratedSecret(secret).slice('sha256$'.length)}`)).toBe(false);
    expect(await verifySecret(secret, `sha256$${slow.split('$')[5]}`)).toBe(false);
  });
});
