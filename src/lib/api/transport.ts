// One HTTP attempt through node:http (or node:https), bounded by a timeout, and the small parsers the client needs.

import { Agent as HttpAgent, request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import { NetworkError, TimeoutError, UsageError } from './errors.js';

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
 * A command sends a handful of requests, one after another: one kept-alive connection serves
 * them all. Idle sockets do not hold the process open (Node unrefs a free keep-alive socket).
 *
 * Why node:http and not fetch: a command is one short process, and Node's fetch costs ~100 ms to
 * load and warm up on the first request (its undici and WebAssembly parser compiled on every run),
 * node:http ~10 ms (it is in Node's startup snapshot, its parser is native): measured with a one-request
 * script against `payctl serve`, median of 9 each. No `Accept-Encoding` is sent, so answers come
 * uncompressed, as fetch would have handed them over.
 */
interface Transport {
  send: typeof httpRequest;
  agent: HttpAgent | HttpsAgent;
}

const http: Transport = { send: httpRequest, agent: new HttpAgent({ keepAlive: true, maxSockets: 4 }) };
/** node:https (and TLS) load with the first https: request. */
let https: Promise<Transport> | undefined;

function transportFor(url: URL): Transport | Promise<Transport> {
  if (url.protocol === 'http:') return http;
  if (url.protocol !== 'https:') throw new UsageError(`unsupported protocol ${url.protocol} in ${url.origin === 'null' ? url.protocol : url.origin} (use http: or https:)`);
  https ??= import('node:https').then((module) => ({ send: module.request, agent: new module.Agent({ keepAlive: true, maxSockets: 4 }) }));
  return https;
}

/**
 * Sends one request and reads the whole answer. A timeout (covering the body too) becomes a
 * TimeoutError; anything that stops the exchange before a whole answer becomes a NetworkError.
 */
export async function sendOnce(exchange: Exchange, options: { timeoutMs: number; requestId?: string }): Promise<RawResponse> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs);
  const id = options.requestId ? { requestId: options.requestId } : {};
  try {
    return await exchangeOnce(exchange, controller.signal);
  } catch (error) {
    // A URL that cannot work is the caller's mistake: said once, not retried as a network failure.
    if (error instanceof UsageError) throw error;
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
  let url: URL;
  try {
    url = new URL(exchange.url);
  } catch {
    throw new UsageError(`not a URL: ${exchange.url.replace(/\/\/[^/@]*@/, '//')}`);
  }
  const { send, agent } = await transportFor(url);
  const body = exchange.body === undefined ? undefined : typeof exchange.body === 'string' ? Buffer.from(exchange.body, 'utf8') : exchange.body;
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(exchange.headers)) {
    if (key.toLowerCase() !== 'content-length') headers[key] = value;
  }
  // A length, never chunked encoding: some servers refuse chunked request bodies.
  if (body !== undefined) headers['content-length'] = String(body.byteLength);
  const requestOptions: RequestOptions = { method: exchange.method, headers, agent, signal };
  return new Promise<RawResponse>((resolve, reject) => {
    const request = send(url, requestOptions, (response) => {
      readWhole(response).then(
        (text) => resolve({ status: response.statusCode ?? 0, headers: flatHeaders(response), text }),
        reject,
      );
    });
    request.on('error', reject);
    request.end(body);
  });
}

/** The body as UTF-8 text. A connection closed before the end fails the response ('error'), not a short body. */
function readWhole(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.on('error', reject);
    response.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      resolve(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    });
    // Belt and braces: a response closed before its end always settles (a no-op after 'end' or 'error').
    response.on('close', () => {
      if (!response.complete) reject(Object.assign(new Error('the connection closed before the whole answer arrived'), { code: 'ECONNRESET' }));
    });
  });
}

/** Lower-case names; a repeated header joined with ", " (as the Fetch standard does). */
function flatHeaders(response: IncomingMessage): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [key, value] of Object.entries(response.headers)) {
    if (value === undefined) continue;
    flat[key] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
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

function describeNetworkError(error: Error): string {
  // The socket's error carries its code; an error that wraps another keeps it as the cause.
  const code = (error as { code?: unknown }).code ?? (error.cause as { code?: unknown } | undefined)?.code;
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
