// What the journal keeps of a request or answer: secrets masked, bodies capped, files by size and type.

import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';

export const MASK = '[masked]';
/** Each body is kept up to this many bytes of its JSON (or text); a longer one is cut and marked. */
export const BODY_CAP_BYTES = 64 * 1024;

/** Header, field and query names whose values are secrets: never stored. */
const SECRET_NAME = /secret|token|password|passwd|assertion|authorization|api[-_]?key|cookie|credential|signature/i;
/** Cheap test before a body is parsed and walked: most bodies name no secret at all. */
const MAY_HOLD_SECRET = /secret|token|password|passwd|assertion|authorization|api[-_]?key|cookie|credential|signature/i;

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
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

/** A JSON value with every string or number under a secret-looking key replaced by the mask. */
export function maskValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(maskValue);
  if (value === null || typeof value !== 'object') return value;
  const masked: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
    masked[key] = isSecretName(key) && (typeof inner === 'string' || typeof inner === 'number') ? MASK : maskValue(inner);
  }
  return masked;
}

export function maskQuery(query: string): string {
  if (query === '' || !MAY_HOLD_SECRET.test(query)) return query;
  const params = new URLSearchParams(query);
  for (const key of [...params.keys()]) if (isSecretName(key)) params.set(key, MASK);
  return params.toString();
}

/** A body as the journal shows it: the JSON value when whole, else its first bytes as text, marked. */
export interface KeptBody {
  body: unknown;
  truncated: boolean;
}

function capped(text: string): KeptBody {
  if (text.length <= BODY_CAP_BYTES / 4 || Buffer.byteLength(text) <= BODY_CAP_BYTES) return { body: text, truncated: false };
  return { body: Buffer.from(text).subarray(0, BODY_CAP_BYTES).toString('utf8'), truncated: true };
}

/** A parsed value (a request body): masked, then kept whole if its JSON fits the cap. */
export function keepParsed(value: unknown): KeptBody {
  if (value === undefined) return { body: null, truncated: false };
  const masked = maskValue(value);
  const text = JSON.stringify(masked) ?? 'null';
  const kept = capped(text);
  return kept.truncated ? kept : { body: masked, truncated: false };
}

/** Answer text: parsed and masked when it is JSON, else kept as text (capped). */
export function keepText(text: string, contentType: string | undefined): KeptBody {
  if (contentType?.includes('json') === true && text !== '') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return capped(text);
    }
    if (!MAY_HOLD_SECRET.test(text)) {
      const kept = capped(text);
      return kept.truncated ? kept : { body: parsed, truncated: false };
    }
    return keepParsed(parsed);
  }
  return capped(text);
}
