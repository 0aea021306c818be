// The server's webhook signing key: made once, kept in the database, served as a certificate.
// A delivery is signed over `transmission_id|transmission_time|webhook_id|crc32(body)`.

import { createPrivateKey, generateKeyPair, randomBytes, sign, verify, X509Certificate, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { crc32 } from 'node:zlib';
import { isoSeconds } from '../core/clock.js';
import type { Queryable } from '../db/schema.js';
import { selfSignedCertificate } from './x509.js';

export const AUTH_ALGO = 'SHA256withRSA';
export const CERT_PATH_PREFIX = '/v1/notifications/certs/';
/** The webhook id that signs simulated events sent to a bare URL (no subscription), as the public API does. */
export const MOCK_WEBHOOK_ID = 'WEBHOOK_ID';

declare module '../db/schema.js' {
  interface Database {
    webhook_signing_keys: { id: string; private_key_pem: string; certificate_pem: string; create_time: string };
  }
}

export interface SigningKey {
  id: string;
  privateKey: KeyObject;
  certificatePem: string;
  certificate: X509Certificate;
}

const generateRsa = promisify(generateKeyPair);
const CERT_YEARS = 20;

function fromRow(row: { id: string; private_key_pem: string; certificate_pem: string }): SigningKey {
  return {
    id: row.id,
    privateKey: createPrivateKey(row.private_key_pem),
    certificatePem: row.certificate_pem,
    certificate: new X509Certificate(row.certificate_pem),
  };
}

async function createKey(db: Queryable, realNow: Date): Promise<SigningKey> {
  const { privateKey } = await generateRsa('rsa', { modulusLength: 2048 });
  const notBefore = new Date(realNow.getTime() - 86_400_000);
  const notAfter = new Date(Date.UTC(notBefore.getUTCFullYear() + CERT_YEARS, notBefore.getUTCMonth(), notBefore.getUTCDate()));
  const row = {
    id: `CERT-${randomBytes(12).toString('hex')}`,
    private_key_pem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    certificate_pem: selfSignedCertificate({ privateKey, commonName: 'payctl webhook signing', organization: 'payctl', notBefore, notAfter }),
    create_time: isoSeconds(realNow),
  };
  await db.insertInto('webhook_signing_keys').values(row).execute();
  return fromRow(row);
}

/** Loads the key, making it on first use; concurrent callers share one generation. */
export class SigningKeys {
  #current: Promise<SigningKey> | undefined;

  constructor(
    private readonly db: Queryable,
    private readonly realNow: () => Date,
  ) {}

  current(): Promise<SigningKey> {
    this.#current ??= (async () => {
      const row = await this.db.selectFrom('webhook_signing_keys').selectAll().orderBy('create_time', 'desc').executeTakeFirst();
      return row ? fromRow(row) : createKey(this.db, this.realNow());
    })();
    this.#current.catch(() => {
      this.#current = undefined;
    });
    return this.#current;
  }

  /** A key by certificate id (only keys this server made). */
  async byId(id: string): Promise<SigningKey | undefined> {
    const key = await this.current();
    if (key.id === id) return key;
    const row = await this.db.selectFrom('webhook_signing_keys').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? fromRow(row) : undefined;
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

export function signTransmission(key: SigningKey, transmission: Transmission, body: string | Buffer): string {
  return sign('sha256', Buffer.from(signedString(transmission, body), 'utf8'), key.privateKey).toString('base64');
}

/** The same signature computed on the libuv thread pool: RSA signing costs milliseconds of CPU. */
export function signTransmissionAsync(key: SigningKey, transmission: Transmission, body: string | Buffer): Promise<string> {
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

export function certUrl(baseUrl: string, key: SigningKey): string {
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
