// Test harness: the real server on 127.0.0.1, port 0, a real SQLite file in a temp dir, spoken to over HTTP.
// In the PostgreSQL run (helpers/postgres.ts) each server gets a fresh PostgreSQL database instead.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type RunningServer, type ServerOptions } from '../../src/server/index.js';
import { freshTestDatabase, onPostgres, type TestDatabase } from './postgres.js';

export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  /** Sent as-is (not JSON-encoded) when a string. */
  raw?: string | Buffer;
  headers?: Record<string, string>;
  /** `null` sends no Authorization header. */
  token?: string | null;
}

export interface Merchant {
  payer_id: string;
  email: string;
  client_id: string;
  client_secret: string;
  token: string;
}

export interface TestServer {
  server: RunningServer;
  url: string;
  dir: string;
  /** The SQLite file (or ':memory:'), or in the PostgreSQL run the database's URL. */
  dbPath: string;
  adminKey: string;
  /** The default merchant, with a token. */
  merchant: Merchant;
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<HttpResult<T>>;
  /** Fetches a token with HTTP Basic client credentials. */
  tokenFor(clientId: string, clientSecret: string): Promise<string>;
  /** A second (third, ...) merchant account with its own app and token. */
  createMerchant(email?: string): Promise<Merchant>;
  /** Advances an account's clock (the default merchant's by default); tokens live in real time. */
  advanceClock(seconds: number, token?: string): Promise<void>;
  close(): Promise<void>;
}

export async function httpRequest<T = any>(url: string, method: string, options: RequestOptions & { defaultToken?: string } = {}): Promise<HttpResult<T>> {
  const headers: Record<string, string> = {};
  const token = options.token === undefined ? options.defaultToken : options.token;
  if (token) headers.authorization = `Bearer ${token}`;
  let body: string | Buffer | undefined;
  if (options.raw !== undefined) body = options.raw;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  Object.assign(headers, options.headers ?? {});
  const response = await fetch(url, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = undefined;
  if (text.length > 0) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

export async function startTestServer(options: Partial<ServerOptions> & { memory?: boolean } = {}): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'payctl-test-'));
  // A dbPath the test names itself is kept (a file it inspects, a database it made).
  const database: TestDatabase | undefined = onPostgres && options.dbPath === undefined ? await freshTestDatabase() : undefined;
  const dbPath = database?.url ?? (options.memory ? ':memory:' : join(dir, 'payctl.db'));
  let server: RunningServer;
  try {
    server = await startServer({
      dbPath,
      logLevel: 'silent',
      ...options,
    });
  } catch (error) {
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const url = server.url;

  async function tokenFor(clientId: string, clientSecret: string): Promise<string> {
    const response = await fetch(`${url}/v1/oauth2/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    });
    const json = (await response.json()) as { access_token?: string };
    if (response.status !== 200 || !json.access_token) throw new Error(`token request failed: ${response.status}`);
    return json.access_token;
  }

  const creds = server.defaultCredentials;
  const merchant: Merchant = { ...creds, token: await tokenFor(creds.client_id, creds.client_secret) };

  const harness: TestServer = {
    server,
    url,
    dir,
    dbPath,
    adminKey: server.adminKey,
    merchant,
    request: (method, path, requestOptions = {}) =>
      httpRequest(`${url}${path}`, method, { ...requestOptions, defaultToken: merchant.token }),
    tokenFor,
    async createMerchant(email) {
      const created = await httpRequest(`${url}/_payctl/accounts`, 'POST', {
        token: server.adminKey,
        body: email === undefined ? {} : { email },
      });
      if (created.status !== 201) throw new Error(`account creation failed: ${created.status} ${created.text}`);
      const account = created.body as Omit<Merchant, 'token'>;
      return { ...account, token: await tokenFor(account.client_id, account.client_secret) };
    },
    async advanceClock(seconds, token) {
      const result = await httpRequest(`${url}/_payctl/clock`, 'POST', {
        token: token ?? merchant.token,
        body: { advance_seconds: seconds },
      });
      if (result.status !== 200) throw new Error(`clock advance failed: ${result.status} ${result.text}`);
    },
    async close() {
      await server.close();
      await database?.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return harness;
}
