// One HTTP attempt over undici, bounded by a timeout, and the small parsers the client needs.

import { NetworkError, TimeoutError } from './errors.js';

export interface Exchange {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/**
 * Sends one request and reads the whole answer. A timeout (covering the body too) becomes a
 * TimeoutError; anything that stops the exchange before an answer becomes a NetworkError.
 */
export async function sendOnce(exchange: Exchange, options: { timeoutMs: number; requestId?: string }): Promise<RawResponse> {
  // undici loads only when a command actually talks HTTP, keeping `--help` fast.
  const { request } = await import('undici');
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs);
  const id = options.requestId ? { requestId: options.requestId } : {};
  try {
    const response = await request(exchange.url, {
      method: exchange.method as 'GET',
      headers: exchange.headers,
      body: exchange.body ?? null,
      signal: controller.signal,
    });
    const text = await response.body.text();
    return { status: response.statusCode, headers: flattenHeaders(response.headers), text };
  } catch (error) {
    if (controller.signal.aborted) {
      throw new TimeoutError(`${exchange.method} ${pathOf(exchange.url)} got no answer within ${options.timeoutMs} ms`, id);
    }
    const reason = error instanceof Error ? describeNetworkError(error) : String(error);
    throw new NetworkError(`could not reach ${originOf(exchange.url)}: ${reason}`, { ...id, cause: error });
  } finally {
    clearTimeout(timer);
  }
}

/** JSON when the service says so (and it parses), else the text. */
export function parseBody(raw: RawResponse): unknown {
  if (raw.text === '') return raw.text;
  if (!/json/i.test(raw.headers['content-type'] ?? '')) return raw.text;
  try {
    return JSON.parse(raw.text) as unknown;
  } catch {
    return raw.text;
  }
}

/** Retry-After in seconds or as an HTTP date, capped so that a misbehaving server cannot park us. */
export function retryAfterMs(header: string | undefined, capMs: number): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - Date.now();
  if (!Number.isFinite(ms) || ms < 0) return undefined;
  return Math.min(ms, capMs);
}

export function lowerCaseKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([key, value]) => [key.toLowerCase(), value]));
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [key, value] of Object.entries(headers)) {
    if (value !== undefined) flat[key.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

function describeNetworkError(error: Error): string {
  const code = (error as { code?: unknown }).code;
  const message = error.cause instanceof Error ? error.cause.message : error.message;
  return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

/** Scheme, host and port only: never credentials that someone put in the URL. */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'the server';
  }
}
