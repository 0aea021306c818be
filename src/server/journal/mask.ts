// What the journal keeps of a request or answer: secrets masked, bodies capped, files by size and type.

import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';

export const MASK = '[masked]';
/** Each body is kept up to this many bytes of its JSON (or text); a longer one is cut and marked. */
export const BODY_CAP_BYTES = 64 * 1024;

/** Header, field and query names whose values are secrets (a card's security code too): never stored. */
const SECRET_NAME = /secret|token|password|passwd|assertion|authorization|api[-_]?key|cookie|credential|signature|security_code|cvv|cvc/i;
/** Names that match SECRET_NAME but say only which kind of secret it is. */
const NOT_SECRET: ReadonlySet<string> = new Set(['token_type']);
/** Cheap test before a body is parsed and walked: most bodies name no secret and no card at all. */
const MAY_HOLD_SECRET = /secret|token|password|passwd|assertion|authorization|api[-_]?key|cookie|credential|signature|security_code|cvv|cvc|"card"/i;

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name) && !NOT_SECRET.has(name.toLowerCase());
}

/** A card number as the journal keeps it: its last four digits only. */
function maskedCardNumber(value: string | number): string {
  const digits = String(value).replace(/\D/g, '');
  return digits.length > 4 ? `${MASK}${digits.slice(-4)}` : MASK;
}

/** The Authorization header keeps its scheme ("Bearer [masked]"): which kind of credential was sent. */
function maskedHeaderValue(name: string, value: string): string {
  if (name !== 'authorization') return MASK;
  const scheme = /^([A-Za-z]+) /.exec(value)?.[1];
  return scheme === undefined ? MASK : `${scheme} ${MASK}`;
}

export function maskHeaders(headers: IncomingHttpHeaders | OutgoingHttpHeaders): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, raw] of Object.entries(headers)) {
    if (raw === undefined) continue;
    const value = Array.isArray(raw) ? raw.join(', ') : String(raw);
    kept[name] = isSecretName(name) ? maskedHeaderValue(name.toLowerCase(), value) : value;
  }
  return kept;
}

/**
 * A JSON value with every string or number under a secret-looking key replaced by the mask, and a
 * card's number (`number` in an object under `card`) cut to its last four digits.
 */
export function maskValue(value: unknown, parentKey = ''): unknown {
  if (Array.isArray(value)) return value.map((item) => maskValue(item, parentKey));
  if (value === null || typeof value !== 'object') return value;
  const inCard = parentKey.toLowerCase() === 'card';
  const masked: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
    const scalar = typeof inner === 'string' || typeof inner === 'number';
    if (scalar && inCard && key === 'number') masked[key] = maskedCardNumber(inner);
    else masked[key] = isSecretName(key) && scalar ? MASK : maskValue(inner, key);
  }
  return masked;
}

export function maskQuery(query: string): string {
  if (query === '' || !MAY_HOLD_SECRET.test(query)) return query;
  const params = new URLSearchParams(query);
  for (const key of [...params.keys()]) if (isSecretName(key)) params.set(key, MASK);
  return params.toString();
}

/**
 * A body as the journal keeps it, as JSON text to place in the entry's detail: the value when whole,
 * else its first bytes as a string, marked truncated.
 */
export interface KeptBody {
  json: string;
  truncated: boolean;
}

const NO_BODY: KeptBody = { json: 'null', truncated: false };

function cut(text: string): KeptBody {
  return { json: JSON.stringify(Buffer.from(text).subarray(0, BODY_CAP_BYTES).toString('utf8')), truncated: true };
}

const fits = (text: string): boolean => text.length <= BODY_CAP_BYTES / 3 || Buffer.byteLength(text) <= BODY_CAP_BYTES;

/** A parsed request body: its JSON, masked only when the text names a secret at all. */
export function keepParsed(value: unknown): KeptBody {
  if (value === undefined) return NO_BODY;
  let text = JSON.stringify(value) ?? 'null';
  if (MAY_HOLD_SECRET.test(text)) text = JSON.stringify(maskValue(value)) ?? 'null';
  return fits(text) ? { json: text, truncated: false } : cut(text);
}

/**
 * An answer's text. The server's JSON answers are JSON.stringify's output: kept as they are (no
 * parse, no second serialization) unless they name a secret; anything else is kept as a string.
 */
export function keepText(text: string, contentType: string | undefined): KeptBody {
  const first = text.charCodeAt(0);
  const json = contentType?.includes('json') === true && (first === 0x7b || first === 0x5b);
  if (!json) return fits(text) ? { json: JSON.stringify(text), truncated: false } : cut(text);
  if (MAY_HOLD_SECRET.test(text)) {
    try {
      return keepParsed(JSON.parse(text));
    } catch {
      return fits(text) ? { json: JSON.stringify(text), truncated: false } : cut(text);
    }
  }
  return fits(text) ? { json: text, truncated: false } : cut(text);
}
