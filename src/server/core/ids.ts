// Identifier generation, injectable so tests can make ids predictable.

import { randomBytes, randomInt } from 'node:crypto';

const UPPER_ALNUM = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';
/** Payer ids avoid 0, 1, I and O, as the service's 13-character merchant ids do. */
const PAYER_ALPHABET = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ';

export interface IdGenerator {
  /** A string of `length` characters from `alphabet`. */
  random(alphabet: string, length: number): string;
}

export const cryptoIds: IdGenerator = {
  random(alphabet, length) {
    let out = '';
    for (let i = 0; i < length; i += 1) out += alphabet[randomInt(alphabet.length)];
    return out;
  },
};

export const payerId = (ids: IdGenerator): string => ids.random(PAYER_ALPHABET, 13);
/** Authorization, capture and refund ids: 17 upper-case letters and digits. */
export const transactionId = (ids: IdGenerator): string => ids.random(UPPER_ALNUM, 17);
export const upperId = (ids: IdGenerator, length: number): string => ids.random(UPPER_ALNUM, length);
/** `PREFIX-XXXX...`: event, template, invoice and other prefixed ids. */
export const prefixedId = (ids: IdGenerator, prefix: string, length: number): string =>
  `${prefix}-${ids.random(UPPER_ALNUM, length)}`;

/** Secrets and tokens: URL-safe, from the OS's CSPRNG whatever generator is injected. */
export function secretToken(bytes: number): string {
  return randomBytes(bytes).toString('base64url');
}
