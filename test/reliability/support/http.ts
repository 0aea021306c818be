// A small HTTP client for load: a fixed number of keep-alive connections to one server, answers
// parsed as JSON, and a lost answer (reset, refused, timed out) reported as such, never thrown.

import { Pool } from 'undici';

export interface Answer<T = any> {
  status: number;
  body: T;
  text: string;
}

/** An HTTP answer, or `lost` with the network error that took it. */
export type Outcome<T = any> = ({ lost: false } & Answer<T>) | { lost: true; error: string };

export interface CallOptions {
  /** JSON-encoded, with its content type. */
  body?: unknown;
  /** Sent as it is (set the content type in `headers`). */
  raw?: string;
  token?: string;
  headers?: Record<string, string>;
}

export interface LoadClient {
  readonly url: string;
  call<T = any>(method: string, path: string, options?: CallOptions): Promise<Outcome<T>>;
  /** Like `call`, but a lost answer throws (for setup and verification, where none is expected). */
  must<T = any>(method: string, path: string, options?: CallOptions): Promise<Answer<T>>;
  close(): Promise<void>;
}

export function parseJson(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function describe(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  return typeof code === 'string' ? `${code}: ${message}` : message;
}

export function loadClient(url: string, options: { connections: number; timeoutMs?: number }): LoadClient {
  const timeout = options.timeoutMs ?? 30_000;
  const pool = new Pool(url, { connections: options.connections, pipelining: 1, headersTimeout: timeout, bodyTimeout: timeout, connectTimeout: 5_000 });

  async function call<T>(method: string, path: string, callOptions: CallOptions = {}): Promise<Outcome<T>> {
    const headers: Record<string, string> = { ...(callOptions.headers ?? {}) };
    if (callOptions.token) headers.authorization = `Bearer ${callOptions.token}`;
    let payload: string | undefined = callOptions.raw;
    if (callOptions.body !== undefined) {
      payload = JSON.stringify(callOptions.body);
      headers['content-type'] = 'application/json';
    }
    try {
      const response = await pool.request({ method: method as 'GET', path, headers, ...(payload !== undefined ? { body: payload } : {}) });
      const text = await response.body.text();
      return { lost: false, status: response.statusCode, body: parseJson(text) as T, text };
    } catch (error) {
      return { lost: true, error: describe(error) };
    }
  }

  return {
    url,
    call,
    async must<T>(method: string, path: string, callOptions: CallOptions = {}) {
      const outcome = await call<T>(method, path, callOptions);
      if (outcome.lost) throw new Error(`${method} ${path}: no answer (${outcome.error})`);
      return outcome;
    },
    async close() {
      await pool.destroy().catch(() => undefined);
    },
  };
}

/** A bearer token for an app's client credentials. */
export async function tokenFor(client: LoadClient, clientId: string, clientSecret: string): Promise<string> {
  const answer = await client.must<{ access_token?: string }>('POST', '/v1/oauth2/token', {
    headers: {
      authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    raw: 'grant_type=client_credentials',
  });
  if (answer.status !== 200 || !answer.body.access_token) throw new Error(`token request failed: ${answer.status} ${answer.text}`);
  return answer.body.access_token;
}

/** Runs `work` over `items` with at most `concurrency` at once; results in input order. */
export async function mapConcurrent<I, O>(items: readonly I[], concurrency: number, work: (item: I, index: number) => Promise<O>): Promise<O[]> {
  const results = new Array<O>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(concurrency, items.length) }, async () => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await work(items[index] as I, index);
    }
  });
  await Promise.all(lanes);
  return results;
}
