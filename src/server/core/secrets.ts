// Hashing for client secrets (scrypt, salted, for secrets people choose; SHA-256 for the ones we
// generate) and for bearer tokens (SHA-256 of 256 random bits).

import { createHash, createHmac, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

const SCRYPT = { N: 16384, r: 8, p: 1, keyLength: 32 } as const;

function scryptAsync(secret: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(secret, salt, SCRYPT.keyLength, { N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p }, (error, key) => {
      if (error) reject(error);
      else resolve(key);
    });
  });
}

/** `scrypt$N$r$p$salt$hash`, so the parameters can change without breaking stored secrets. */
export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(secret, salt);
  const stored = ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64url'), key.toString('base64url')].join('$');
  rememberVerified(stored, secret);
  return stored;
}

/**
 * For a secret this server generated (`newClientSecret`: 480 random bits) a slow, salted hash adds
 * nothing against guessing, so it is stored as `sha256$<hex>`, like tokens: a fresh `payctl serve`
 * then answers without a ~67 ms scrypt first. Secrets someone chose (`--client-secret`, a client_secret
 * given to the control plane, one remembered from the credentials file) always get scrypt.
 */
export function hashGeneratedSecret(secret: string): string {
  return `sha256$${hashToken(secret)}`;
}

/**
 * Secrets already proven against a stored hash: stored hash -> HMAC of the secret under a key made
 * for this process (a chosen, weak secret leaves nothing in memory to search offline). A token
 * request with the same credentials then costs an HMAC, not another scrypt (~70 ms of a thread
 * and 16 MB that glibc keeps in that thread's arena after the second run). Keyed by the stored
 * hash, so changed credentials never match an old entry; wrong secrets still pay the full scrypt.
 */
const verified = new Map<string, Buffer>();
const VERIFIED_LIMIT = 1_000;
const PROCESS_KEY = randomBytes(32);
const fingerprint = (secret: string): Buffer => createHmac('sha256', PROCESS_KEY).update(secret).digest();

function rememberVerified(stored: string, secret: string): void {
  if (verified.size >= VERIFIED_LIMIT) verified.clear();
  verified.set(stored, fingerprint(secret));
}

export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const known = verified.get(stored);
  if (known && timingSafeEqual(known, fingerprint(secret))) return true;
  if (stored.startsWith('sha256$')) {
    const expected = Buffer.from(stored.slice('sha256$'.length), 'hex');
    const given = Buffer.from(hashToken(secret), 'hex');
    return expected.length === given.length && timingSafeEqual(expected, given);
  }
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, n, r, p, saltText, hashText] = parts as [string, string, string, string, string, string];
  const expected = Buffer.from(hashText, 'base64url');
  const key = await new Promise<Buffer>((resolve, reject) => {
    scrypt(secret, Buffer.from(saltText, 'base64url'), expected.length, { N: Number(n), r: Number(r), p: Number(p) }, (error, derived) => {
      if (error) reject(error);
      else resolve(derived);
    });
  });
  const matches = key.length === expected.length && timingSafeEqual(key, expected);
  if (matches) rememberVerified(stored, secret);
  return matches;
}

/** Tokens are high-entropy, so a fast hash is enough: the database never holds a usable token. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
