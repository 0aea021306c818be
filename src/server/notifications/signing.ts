// The server's webhook signing key: made once, kept in the database encrypted under a secret that
// lives in the 0600 credentials file (never in the database), served as a certificate.
// A delivery is signed over `transmission_id|transmission_time|webhook_id|crc32(body)`.

import { createCipheriv, createDecipheriv, createPrivateKey, generateKeyPair, randomBytes, sign, verify, X509Certificate, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { crc32 } from 'node:zlib';
import { isoSeconds } from '../core/clock.js';
import type { Queryable } from '../db/schema.js';
import type { Storage } from '../db/storage.js';
import { selfSignedCertificate } from './x509.js';

export const AUTH_ALGO = 'SHA256withRSA';
export const CERT_PATH_PREFIX = '/v1/notifications/certs/';
/** The webhook id that signs simulated events sent to a bare URL (no subscription), as the public API does. */
export const MOCK_WEBHOOK_ID = 'WEBHOOK_ID';

declare module '../db/schema.js' {
  interface Database {
    /** `private_key_pem` holds the PKCS#8 PEM sealed by sealPrivateKey (older databases: the PEM itself, sealed at start). */
    webhook_signing_keys: { id: string; private_key_pem: string; certificate_pem: string; create_time: string };
  }
}

/** What verifying and serving a certificate need. */
export interface SigningCertificate {
  id: string;
  certificatePem: string;
  certificate: X509Certificate;
}

export interface SigningKey extends SigningCertificate {
  privateKey: KeyObject;
}

const generateRsa = promisify(generateKeyPair);
const CERT_YEARS = 20;
const SEALED_PREFIX = 'aes-256-gcm:';

/** The PEM encrypted under `secret` (32 bytes), bound to the key id: `aes-256-gcm:<iv>.<tag>.<ciphertext>` in base64url. */
export function sealPrivateKey(pem: string, id: string, secret: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', secret, iv);
  cipher.setAAD(Buffer.from(id, 'utf8'));
  const sealed = Buffer.concat([cipher.update(pem, 'utf8'), cipher.final()]);
  return `${SEALED_PREFIX}${[iv, cipher.getAuthTag(), sealed].map((part) => part.toString('base64url')).join('.')}`;
}

/** The PEM, or undefined when `stored` was sealed under another secret (or is damaged). */
export function openPrivateKey(stored: string, id: string, secret: Buffer): string | undefined {
  if (!stored.startsWith(SEALED_PREFIX)) return undefined;
  const [iv, tag, sealed] = stored.slice(SEALED_PREFIX.length).split('.').map((part) => Buffer.from(part, 'base64url'));
  if (!iv || !tag || !sealed) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', secret, iv);
    decipher.setAAD(Buffer.from(id, 'utf8'));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(sealed), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

const isPlainPem = (stored: string): boolean => stored.startsWith('-----BEGIN');

function certificateOf(row: { id: string; certificate_pem: string }): SigningCertificate {
  return { id: row.id, certificatePem: row.certificate_pem, certificate: new X509Certificate(row.certificate_pem) };
}

async function createKey(db: Queryable, realNow: Date, secret: Buffer): Promise<SigningKey> {
  const { privateKey } = await generateRsa('rsa', { modulusLength: 2048 });
  const notBefore = new Date(realNow.getTime() - 86_400_000);
  const notAfter = new Date(Date.UTC(notBefore.getUTCFullYear() + CERT_YEARS, notBefore.getUTCMonth(), notBefore.getUTCDate()));
  const id = `CERT-${randomBytes(12).toString('hex')}`;
  const row = {
    id,
    private_key_pem: sealPrivateKey(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), id, secret),
    certificate_pem: selfSignedCertificate({ privateKey, commonName: 'payctl webhook signing', organization: 'payctl', notBefore, notAfter }),
    create_time: isoSeconds(realNow),
  };
  await db.insertInto('webhook_signing_keys').values(row).execute();
  return { ...certificateOf(row), privateKey };
}

/**
 * Keys stored in the clear by an older payctl are sealed in place, through the storage's secure
 * rewrite (on SQLite: freed cells zeroed, the WAL checkpointed so the old page images leave it).
 */
async function sealPlainKeys(storage: SigningKeyStorage, secret: Buffer): Promise<number> {
  const rows = await storage.db.selectFrom('webhook_signing_keys').select(['id', 'private_key_pem']).execute();
  if (!rows.some((row) => isPlainPem(row.private_key_pem))) return 0;
  return storage.secureRewrite('signing-keys.seal', async (trx) => {
    // Read again under the transaction: another server starting on the database may have sealed them.
    const plain = (await trx.selectFrom('webhook_signing_keys').select(['id', 'private_key_pem']).forUpdate().execute()).filter((row) => isPlainPem(row.private_key_pem));
    for (const row of plain) {
      await trx
        .updateTable('webhook_signing_keys')
        .set({ private_key_pem: sealPrivateKey(row.private_key_pem, row.id, secret) })
        .where('id', '=', row.id)
        .execute();
    }
    return plain.length;
  });
}

/** What the signing keys need of the storage: reads, and the secure rewrite that seals old keys. */
export type SigningKeyStorage = Pick<Storage, 'db' | 'secureRewrite'>;

/**
 * Whether the newest stored key (the one a server signs with) opens under `secret`; true when there
 * is none yet, or it is an older payctl's plain PEM (sealed at start).
 */
export async function storedSigningKeyOpens(db: Queryable, secret: Buffer): Promise<boolean> {
  const row = await db.selectFrom('webhook_signing_keys').select(['id', 'private_key_pem']).orderBy('create_time', 'desc').executeTakeFirst();
  return !row || isPlainPem(row.private_key_pem) || openPrivateKey(row.private_key_pem, row.id, secret) !== undefined;
}

/** Loads the key, making it on first use; concurrent callers share one generation. */
export class SigningKeys {
  #current: Promise<SigningKey> | undefined;

  /**
   * `secret` is the 32-byte key the private key is sealed under (from the credentials file);
   * `warn` says when a stored key could not be opened with it and a new key was made.
   */
  private readonly db: Queryable;

  constructor(
    private readonly storage: SigningKeyStorage,
    private readonly realNow: () => Date,
    private readonly secret: () => Buffer,
    private readonly warn: (message: string) => void = () => undefined,
  ) {
    this.db = storage.db;
  }

  current(): Promise<SigningKey> {
    this.#current ??= (async () => {
      const secret = this.secret();
      const row = await this.db.selectFrom('webhook_signing_keys').selectAll().orderBy('create_time', 'desc').executeTakeFirst();
      const pem = row ? openPrivateKey(row.private_key_pem, row.id, secret) : undefined;
      if (row && pem !== undefined) return { ...certificateOf(row), privateKey: createPrivateKey(pem) };
      if (row) this.warn('the webhook signing key could not be opened (credentials file missing or replaced); a new key and certificate were made');
      return createKey(this.db, this.realNow(), secret);
    })();
    this.#current.catch(() => {
      this.#current = undefined;
    });
    return this.#current;
  }

  /** Seals keys an older payctl stored in the clear (at start: a server that never delivers must not keep one). */
  async sealStoredKeys(): Promise<void> {
    const sealed = await sealPlainKeys(this.storage, this.secret());
    if (sealed > 0) this.warn(`${sealed} webhook signing key(s) were stored in the clear by an older payctl; they are now sealed`);
  }

  /** A certificate by id (only ones this server made; older keys still verify what they signed). */
  async byId(id: string): Promise<SigningCertificate | undefined> {
    const key = await this.current();
    if (key.id === id) return key;
    const row = await this.db.selectFrom('webhook_signing_keys').select(['id', 'certificate_pem']).where('id', '=', id).executeTakeFirst();
    return row ? certificateOf(row) : undefined;
  }
}

export interface Transmission {
  transmissionId: string;
  transmissionTime: string;
  webhookId: string;
}

/** CRC-32 (IEEE) of the exact body bytes, as an unsigned decimal. */
export function bodyCrc32(body: string | Buffer): string {
  return String(crc32(typeof body === 'string' ? Buffer.from(body, 'utf8') : body) >>> 0);
}

export function signedString(transmission: Transmission, body: string | Buffer): string {
  return `${transmission.transmissionId}|${transmission.transmissionTime}|${transmission.webhookId}|${bodyCrc32(body)}`;
}

/** The transmission's signature, computed on the libuv thread pool: RSA signing costs milliseconds of CPU. */
export function signTransmissionAsync(key: Pick<SigningKey, 'privateKey'>, transmission: Transmission, body: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    sign('sha256', Buffer.from(signedString(transmission, body), 'utf8'), key.privateKey, (error, signature) => {
      if (error) reject(error);
      else resolve(signature.toString('base64'));
    });
  });
}

export function verifyTransmission(
  certificate: X509Certificate,
  transmission: Transmission,
  body: string | Buffer,
  signatureBase64: string,
): boolean {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(signatureBase64)) return false;
  try {
    return verify(
      'sha256',
      Buffer.from(signedString(transmission, body), 'utf8'),
      certificate.publicKey,
      Buffer.from(signatureBase64, 'base64'),
    );
  } catch {
    return false;
  }
}

export function certUrl(baseUrl: string, key: SigningCertificate): string {
  return `${baseUrl.replace(/\/+$/, '')}${CERT_PATH_PREFIX}${key.id}`;
}

/** The certificate id in a cert URL this server advertised, or undefined for any other URL. */
export function certIdOf(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.search !== '' || parsed.hash !== '') return undefined;
  const match = /^\/v1\/notifications\/certs\/(CERT-[0-9a-f]{24})$/.exec(parsed.pathname);
  return match?.[1];
}
