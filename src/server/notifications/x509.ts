// A minimal DER encoder for one thing: a self-signed X.509 v3 certificate around an RSA key.
// Node's crypto parses certificates (X509Certificate) but cannot create them; this is the
// smallest encoder that yields a certificate X509Certificate, openssl and SDKs accept.

import { createPublicKey, randomBytes, sign, type KeyObject } from 'node:crypto';

function derLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, content: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag]), derLength(content.length), content]);
}

const sequence = (...items: Buffer[]): Buffer => tlv(0x30, Buffer.concat(items));
const set = (...items: Buffer[]): Buffer => tlv(0x31, Buffer.concat(items));
const nullValue = (): Buffer => Buffer.from([0x05, 0x00]);
const utf8String = (text: string): Buffer => tlv(0x0c, Buffer.from(text, 'utf8'));
const explicit = (tagNumber: number, content: Buffer): Buffer => tlv(0xa0 + tagNumber, content);

/** A non-negative INTEGER from big-endian bytes (a leading zero keeps it positive). */
function unsignedInteger(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start += 1;
  const trimmed = bytes.subarray(start);
  return tlv(0x02, (trimmed[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
}

function objectIdentifier(dotted: string): Buffer {
  const [first = 0, second = 0, ...rest] = dotted.split('.').map(Number);
  const bytes: number[] = [first * 40 + second];
  for (const arc of rest) {
    const chunk: number[] = [arc & 0x7f];
    for (let value = Math.floor(arc / 128); value > 0; value = Math.floor(value / 128)) chunk.unshift(0x80 | (value & 0x7f));
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

const bitString = (content: Buffer): Buffer => tlv(0x03, Buffer.concat([Buffer.from([0]), content]));
const boolean = (value: boolean): Buffer => tlv(0x01, Buffer.from([value ? 0xff : 0x00]));
const octetString = (content: Buffer): Buffer => tlv(0x04, content);

/** UTCTime up to 2049, GeneralizedTime from 2050, as RFC 5280 requires. */
function time(date: Date): Buffer {
  const iso = date.toISOString();
  const digits = `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
  return date.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(digits.slice(2), 'ascii')) : tlv(0x18, Buffer.from(digits, 'ascii'));
}

const OID = {
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  sha256WithRsa: '1.2.840.113549.1.1.11',
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
} as const;

function distinguishedName(commonName: string, organization: string): Buffer {
  return sequence(
    set(sequence(objectIdentifier(OID.organization), utf8String(organization))),
    set(sequence(objectIdentifier(OID.commonName), utf8String(commonName))),
  );
}

function extensions(): Buffer {
  const basicConstraints = sequence(objectIdentifier(OID.basicConstraints), boolean(true), octetString(sequence()));
  // digitalSignature only: bit 0 of the KeyUsage BIT STRING, 7 unused bits.
  const keyUsage = sequence(objectIdentifier(OID.keyUsage), boolean(true), octetString(tlv(0x03, Buffer.from([0x07, 0x80]))));
  return explicit(3, sequence(basicConstraints, keyUsage));
}

export interface CertificateOptions {
  privateKey: KeyObject;
  commonName: string;
  organization: string;
  notBefore: Date;
  notAfter: Date;
}

/** A self-signed certificate (SHA256withRSA) for the key, as PEM. */
export function selfSignedCertificate(options: CertificateOptions): string {
  const publicKeyInfo = createPublicKey(options.privateKey).export({ type: 'spki', format: 'der' });
  const algorithm = sequence(objectIdentifier(OID.sha256WithRsa), nullValue());
  const name = distinguishedName(options.commonName, options.organization);
  const serial = randomBytes(16);
  serial[0] = (serial[0] ?? 0) & 0x7f;
  const tbs = sequence(
    explicit(0, unsignedInteger(Buffer.from([2]))),
    unsignedInteger(serial),
    algorithm,
    name,
    sequence(time(options.notBefore), time(options.notAfter)),
    name,
    publicKeyInfo,
    extensions(),
  );
  const signature = sign('sha256', tbs, options.privateKey);
  const der = sequence(tbs, algorithm, bitString(signature));
  const base64 = der.toString('base64').replace(/(.{64})/g, '$1\n').replace(/\n$/, '');
  return `-----BEGIN CERTIFICATE-----\n${base64}\n-----END CERTIFICATE-----\n`;
}
