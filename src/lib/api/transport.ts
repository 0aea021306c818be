// One HTTP attempt over node:http(s), bounded by a timeout, and the small parsers the client needs.

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
 * node:http(s) rather than undici: it is already in Node's startup snapshot, while loading undici
 * (46 modules) cost a command ~75 ms before it sent anything.
 */
export async function sendOnce(exchange: Exchange, options: { timeoutMs: number; requestId?: string }): Promise<RawResponse> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs);
  const id = options.requestId ? { requestId: options.requestId } : {};
  try {
    return await exchangeOnce(exchange, controller.signal);
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

async function exchangeOnce(exchange: Exchange, signal: AbortSignal): Promise<RawResponse> {
  const url = new URL(exchange.url);
  const { request } = url.protocol === 'https:' ? await import('node:https') : await import('node:http');
  const body = exchange.body === undefined ? undefined : typeof exchange.body === 'string' ? Buffer.from(exchange.body) : exchange.body;
  const headers: Record<string, string> = { ...exchange.headers };
  if (body !== undefined && !Object.keys(headers).some((key) => key.toLowerCase() === 'content-length')) {
    headers['content-length'] = String(body.byteLength);
  }
  return new Promise<RawResponse>((resolve, reject) => {
    const outgoing = request(url, { method: exchange.method, headers, signal }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('error', reject);
      incoming.on('aborted', () => reject(new Error('the connection closed before the answer was complete')));
      incoming.on('end', () => {
        if (!incoming.complete) return reject(new Error('the connection closed before the answer was complete'));
        resolve({
          status: incoming.statusCode ?? 0,
          headers: flattenHeaders(incoming.headers),
          text: Buffer.concat(chunks).toString('utf8'),
        });
      });
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
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
