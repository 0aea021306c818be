// ApiClient against a scripted node:http server on 127.0.0.1 (real sockets, no HTTP mocks).

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../../src/lib/api/client.js';
import { ApiError, NetworkError, TimeoutError, exitCodeFor } from '../../../src/lib/api/errors.js';
import { memoryTokenCache } from '../../../src/lib/api/types.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

type Handler = (request: Seen, response: ServerResponse) => void;

let server: Server | undefined;

async function serve(handler: Handler): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      const entry = { method: request.method ?? '', url: request.url ?? '', headers: request.headers, body };
      seen.push(entry);
      handler(entry, response);
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, seen };
}

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

function json(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

const SECRET = 'super-secret-value-1234';
let tokenCounter = 0;

function answerToken(request: Seen, response: ServerResponse): boolean {
  if (request.url !== '/v1/oauth2/token') return false;
  const expected = `Basic ${Buffer.from(`client-1:${SECRET}`).toString('base64')}`;
  if (request.headers.authorization !== expected || request.body !== 'grant_type=client_credentials') {
    json(response, 401, { error: 'invalid_client', error_description: 'Client Authentication failed' });
    return true;
  }
  tokenCounter += 1;
  json(response, 200, { scope: 's', access_token: `token-${tokenCounter}`, token_type: 'Bearer', app_id: 'APP-1', expires_in: 32400, nonce: 'n' });
  return true;
}

function clientFor(url: string, overrides: Partial<ConstructorParameters<typeof ApiClient>[0]> = {}): ApiClient {
  return new ApiClient({ baseUrl: url, clientId: 'client-1', clientSecret: SECRET, backoffMs: 5, ...overrides });
}

const apiCalls = (seen: Seen[]) => seen.filter((entry) => entry.url !== '/v1/oauth2/token');

describe('ApiClient', () => {
  it('retries 5xx with the same Service-Request-Id and returns the final answer', async () => {
    let failures = 2;
    const { url, seen } = await serve((request, response) => {
      if (answerToken(request, response)) return;
      if (failures-- > 0) return json(response, 503, { name: 'SERVICE_UNAVAILABLE', message: 'busy' });
      json(response, 201, { id: 'R1' });
    });
    const result = await clientFor(url).request({ method: 'POST', path: '/v2/things', body: { a: 1 }, prefer: 'return=representation' });
    expect(result.status).toBe(201);
    expect(result.body).toEqual({ id: 'R1' });
    const calls = apiCalls(seen);
    expect(calls).toHaveLength(3);
    const ids = calls.map((call) => call.headers['service-request-id']);
    expect(ids[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(ids).size).toBe(1);
    // Under both names, so a service that honours only PayPal-Request-Id sees the same key.
    expect(calls.map((call) => call.headers['paypal-request-id'])).toEqual(ids);
    expect(result.requestId).toBe(ids[0]);
    expect(calls[0]?.headers.authorization).toMatch(/^Bearer token-\d+$/);
    expect(calls[0]?.headers.prefer).toBe('return=representation');
    expect(calls[0]?.body).toBe('{"a":1}');
  });

  it('gives up after `retries` retries with exit code 6 and keeps the caller request id', async () => {
    const { url, seen } = await serve((request, response) => {
      if (answerToken(request, response)) return;
      json(response, 500, { name: 'INTERNAL_SERVER_ERROR', message: 'boom', debug_id: 'd1' });
    });
    const error = await clientFor(url, { retries: 2 })
      .request({ method: 'POST', path: '/v2/x', body: {}, requestId: 'my-id-1' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect(exitCodeFor(error)).toBe(6);
    expect((error as ApiError).requestId).toBe('my-id-1');
    expect((error as ApiError).attempts).toBe(3);
    expect(apiCalls(seen).map((call) => call.headers['service-request-id'])).toEqual(['my-id-1', 'my-id-1', 'my-id-1']);
    expect(apiCalls(seen).map((call) => call.headers['paypal-request-id'])).toEqual(['my-id-1', 'my-id-1', 'my-id-1']);
  });

  it('honours Retry-After on 429', async () => {
    let limited = true;
    const { url, seen } = await serve((request, response) => {
      if (answerToken(request, response)) return;
      if (limited) {
        limited = false;
        return json(response, 429, { name: 'RATE_LIMIT_REACHED', message: 'slow down' }, { 'retry-after': '1' });
      }
      json(response, 200, { ok: true });
    });
    const started = Date.now();
    const result = await clientFor(url).request({ method: 'GET', path: '/v2/x' });
    expect(result.body).toEqual({ ok: true });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(apiCalls(seen)).toHaveLength(2);
    expect(apiCalls(seen)[0]?.headers['service-request-id']).toBeUndefined();
    expect(apiCalls(seen)[0]?.headers['paypal-request-id']).toBeUndefined();
  });

  it('does not retry 4xx and maps them to the exit-code table', async () => {
    const statuses: Record<string, number> = { '/400': 400, '/401': 401, '/403': 403, '/404': 404, '/409': 409, '/422': 422 };
    const { url, seen } = await serve((request, response) => {
      if (answerToken(request, response)) return;
      const status = statuses[request.url] ?? 200;
      json(response, status, { name: `E${status}`, message: 'no', debug_id: 'x', details: [{ issue: 'I' }] });
    });
    const client = clientFor(url);
    const codes: Record<string, number> = {};
    for (const path of Object.keys(statuses)) {
      codes[path] = exitCodeFor(await client.request({ method: 'GET', path }).catch((caught: unknown) => caught));
    }
    expect(codes).toEqual({ '/400': 2, '/401': 4, '/403': 4, '/404': 3, '/409': 5, '/422': 5 });
    // Only the 401 is sent twice: the token it carried came from the cache, so one fresh token is tried.
    expect(apiCalls(seen).map((call) => call.url)).toEqual(['/400', '/401', '/401', '/403', '/404', '/409', '/422']);
  });

  it('replaces a rejected cached token once, then retries with the same request id', async () => {
    const { url, seen } = await serve((request, response) => {
      if (answerToken(request, response)) return;
      if (request.headers.authorization === 'Bearer stale') return json(response, 401, { name: 'AUTHENTICATION_FAILURE', message: 'expired' });
      json(response, 200, { ok: true });
    });
    const cache = memoryTokenCache();
    const probe = clientFor(url, { tokenCache: cache });
    await probe.getToken();
    const fingerprint = cache.get(url, 'client-1')?.secret_fingerprint;
    cache.set(url, 'client-1', { access_token: 'stale', expires_at: new Date(Date.now() + 3_600_000).toISOString(), app_id: 'A', scope: 's', ...(fingerprint ? { secret_fingerprint: fingerprint } : {}) });
    seen.length = 0;
    const result = await clientFor(url, { tokenCache: cache }).request({ method: 'DELETE', path: '/v2/x/1' });
    expect(result.body).toEqual({ ok: true });
    expect(seen.map((entry) => entry.url)).toEqual(['/v2/x/1', '/v1/oauth2/token', '/v2/x/1']);
    expect(seen[0]?.headers['service-request-id']).toBe(seen[2]?.headers['service-request-id']);
    expect(cache.get(url, 'client-1')?.access_token).not.toBe('stale');
  });

  it('turns a bad secret into exit code 4 without printing the secret', async () => {
    const { url } = await serve((request, response) => {
      if (request.url === '/v1/oauth2/token') {
        return json(response, 401, { error: 'invalid_client', error_description: `bad secret ${'wrong-secret-abcdef'}` });
      }
      json(response, 200, {});
    });
    const error = await clientFor(url, { clientSecret: 'wrong-secret-abcdef' })
      .request({ method: 'GET', path: '/x' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect(exitCodeFor(error)).toBe(4);
    expect((error as ApiError).errorName).toBe('invalid_client');
    expect((error as ApiError).message).not.toContain('wrong-secret-abcdef');
    expect(JSON.stringify((error as ApiError).report())).not.toContain('wrong-secret-abcdef');
  });

  it('times out per attempt with exit code 8', async () => {
    const { url } = await serve((request, response) => {
      if (answerToken(request, response)) return;
      setTimeout(() => json(response, 200, {}), 2_000);
    });
    const error = await clientFor(url, { timeoutMs: 200 })
      .request({ method: 'POST', path: '/slow', body: {} })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(exitCodeFor(error)).toBe(8);
    expect((error as TimeoutError).requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('gives up on a refused connection with exit code 6 after retrying', async () => {
    const { url } = await serve((_request, response) => json(response, 200, {}));
    // Closed (the callback runs once the port no longer listens): every attempt is refused.
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    const error = await clientFor(url, { retries: 1 })
      .request({ method: 'GET', path: '/x', headers: { Authorization: 'Bearer admin' } })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NetworkError);
    expect(exitCodeFor(error)).toBe(6);
    expect((error as NetworkError).attempts).toBe(2);
  });

  it('lets a caller Authorization header replace the bearer token (no token call)', async () => {
    const { url, seen } = await serve((request, response) => json(response, 201, { auth: request.headers.authorization }));
    const client = new ApiClient({ baseUrl: url });
    const result = await client.request({ method: 'POST', path: '/_payctl/accounts', headers: { Authorization: 'Bearer admin-key' }, body: {} });
    expect(result.body).toEqual({ auth: 'Bearer admin-key' });
    expect(seen.map((entry) => entry.url)).toEqual(['/_payctl/accounts']);
  });

  it('sends a caller assertion and request id under both their names, with one value', async () => {
    const { url, seen } = await serve((request, response) => {
      if (answerToken(request, response)) return;
      json(response, 200, {});
    });
    await clientFor(url).request({ method: 'POST', path: '/v2/x', body: {}, headers: { 'PayPal-Auth-Assertion': 'a.b.', 'PayPal-Request-Id': 'given-1' } });
    const [call] = apiCalls(seen);
    expect([call?.headers['service-auth-assertion'], call?.headers['paypal-auth-assertion']]).toEqual(['a.b.', 'a.b.']);
    expect([call?.headers['service-request-id'], call?.headers['paypal-request-id']]).toEqual(['given-1', 'given-1']);
  });

  it('treats an empty or absent request id as none: a POST still gets a fresh one', async () => {
    const { url, seen } = await serve((request, response) => {
      if (answerToken(request, response)) return;
      json(response, 200, {});
    });
    const client = clientFor(url);
    await client.request({ method: 'POST', path: '/v2/x', body: {}, requestId: '' });
    await client.request({ method: 'POST', path: '/v2/x', body: {}, requestId: undefined });
    const ids = apiCalls(seen).map((call) => call.headers['service-request-id']);
    expect(ids).toEqual([expect.stringMatching(/^[0-9a-f-]{36}$/), expect.stringMatching(/^[0-9a-f-]{36}$/)]);
  });
});
