// The server core over real HTTP: tokens, errors, validation, assertions, rate limits, storage gates.

import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Kysely, sql } from 'kysely';
import { applyPragmas, closeDatabase, openDatabase } from '../../src/server/db/connection.js';
import { BetterSqliteDialect } from '../../src/server/db/driver.js';
import type { Database } from '../../src/server/db/schema.js';
import { migrate } from '../../src/server/db/migrate.js';
import { MIGRATIONS } from '../../src/server/db/migrations/index.js';
import { createSqliteStorage } from '../../src/server/db/sqlite-storage.js';
import { isoMillis, isoSeconds } from '../../src/server/core/clock.js';
import { startServer } from '../../src/server/index.js';
import { httpRequest, startTestServer, type TestServer } from '../helpers/server.js';
import { credentialsFileOf, onPostgres, openStorageAt } from '../helpers/postgres.js';

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const assertion = (header: unknown, payload: unknown) => `${b64url(header)}.${b64url(payload)}.`;

async function tokenResponse(url: string, authorization: string | undefined, body = 'grant_type=client_credentials', contentType = 'application/x-www-form-urlencoded') {
  const headers: Record<string, string> = { 'content-type': contentType };
  if (authorization !== undefined) headers.authorization = authorization;
  const response = await fetch(`${url}/v1/oauth2/token`, { method: 'POST', headers, body });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

describe('OAuth2 tokens', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  it('issues a bearer token with the documented fields', async () => {
    const { client_id, client_secret } = t.merchant;
    const result = await tokenResponse(t.url, basic(client_id, client_secret));
    expect(result.status).toBe(200);
    expect(result.body.token_type).toBe('Bearer');
    expect(result.body.expires_in).toBe(32400);
    expect(typeof result.body.app_id).toBe('string');
    expect(typeof result.body.nonce).toBe('string');
    expect(String(result.body.scope)).toContain('https://uri.paypal.com/services/payments/refund');
    const token = String(result.body.access_token);
    // At least 160 random bits: 32 random bytes base64url-encoded after the prefix.
    expect(token.length).toBeGreaterThanOrEqual(5 + 43);
    const whoami = await t.request('GET', '/_payctl/whoami', { token });
    expect(whoami.status).toBe(200);
    expect(whoami.body.payer_id).toBe(t.merchant.payer_id);
  });

  it.each([
    ['a wrong secret', () => basic(t.merchant.client_id, 'wrong'), 401, 'invalid_client'],
    ['an unknown client id', () => basic('nobody', 'x'), 401, 'invalid_client'],
    ['no Authorization header', () => undefined, 401, 'invalid_client'],
    ['a Bearer instead of Basic', () => 'Bearer abc', 401, 'invalid_client'],
  ])('refuses %s', async (_label, header, status, error) => {
    const result = await tokenResponse(t.url, header());
    expect(result.status).toBe(status);
    expect(result.body.error).toBe(error);
    expect(result.body.access_token).toBeUndefined();
  });

  it('refuses another grant type and a JSON body', async () => {
    const auth = basic(t.merchant.client_id, t.merchant.client_secret);
    const wrongGrant = await tokenResponse(t.url, auth, 'grant_type=password');
    expect(wrongGrant.status).toBe(400);
    expect(wrongGrant.body.error).toBe('unsupported_grant_type');
    const json = await tokenResponse(t.url, auth, '{"grant_type":"client_credentials"}', 'application/json');
    expect(json.status).toBe(400);
  });

  it.each([
    ['no header', undefined],
    ['a malformed header', 'Token abc'],
    ['an unknown token', 'Bearer A21AAnotatoken'],
    ['a Basic header', 'Basic Zm9vOmJhcg=='],
  ])('answers 401 AUTHENTICATION_FAILURE for %s', async (_label, header) => {
    const result = await httpRequest(`${t.url}/_payctl/clock`, 'GET', { headers: header ? { authorization: header } : {} });
    expect(result.status).toBe(401);
    expect(result.body.name).toBe('AUTHENTICATION_FAILURE');
    expect(typeof result.body.debug_id).toBe('string');
  });

  it('keeps a token live through clock moves and resets: its lifetime is real time', async () => {
    const merchant = await t.createMerchant();
    const taken = await tokenResponse(t.url, basic(merchant.client_id, merchant.client_secret));
    expect(taken.body.expires_in).toBe(32_400);
    // Ten years on the account's clock: a token taken before and one taken after both still work.
    await t.advanceClock(315_360_000, merchant.token);
    const after = await t.tokenFor(merchant.client_id, merchant.client_secret);
    for (const token of [merchant.token, after]) {
      const clock = await t.request('GET', '/_payctl/clock', { token });
      expect(clock.status).toBe(200);
      expect(clock.body.offset_seconds).toBe(315_360_000);
    }
    const reset = await t.request('POST', '/_payctl/reset', { token: merchant.token, body: {} });
    expect(reset.status).toBe(200);
    expect((await t.request('GET', '/_payctl/clock', { token: after })).body.offset_seconds).toBe(0);
  });

  it('expires a token expires_in seconds of real time after it was issued, whatever the account clock says', async () => {
    let realNow = Date.parse('2030-01-01T00:00:00Z');
    const timed = await startTestServer({ memory: true, now: () => realNow });
    try {
      const { token } = timed.merchant;
      const later = await timed.createMerchant();
      realNow += 32_399_000;
      // A clock move forward does not expire it, a reset does not lengthen it...
      await timed.advanceClock(5 * 86_400, token);
      expect((await timed.request('GET', '/_payctl/clock', { token })).status).toBe(200);
      expect((await timed.request('POST', '/_payctl/reset', { token, body: {} })).status).toBe(200);
      realNow += 1_000;
      const expired = await timed.request('GET', '/_payctl/clock', { token });
      expect(expired.status).toBe(401);
      expect(expired.body.name).toBe('AUTHENTICATION_FAILURE');
      // ...and one taken after a ten-year advance lives 32,400 s of real time, not ten years.
      await timed.advanceClock(315_360_000, await timed.tokenFor(later.client_id, later.client_secret));
      const afterAdvance = await timed.tokenFor(later.client_id, later.client_secret);
      realNow += 32_399_000;
      expect((await timed.request('GET', '/_payctl/clock', { token: afterAdvance })).status).toBe(200);
      realNow += 1_000;
      expect((await timed.request('GET', '/_payctl/clock', { token: afterAdvance })).status).toBe(401);
      // A reset does not revive it.
      expect((await timed.request('POST', '/_payctl/reset', { token: timed.adminKey, body: {} })).status).toBe(200);
      expect((await timed.request('GET', '/_payctl/clock', { token: afterAdvance })).status).toBe(401);
      // A fresh token works.
      const fresh = await timed.tokenFor(later.client_id, later.client_secret);
      expect((await timed.request('GET', '/_payctl/clock', { token: fresh })).status).toBe(200);
    } finally {
      await timed.close();
    }
  });

  it('stores neither the secret nor the token in the clear', async () => {
    const rows = await t.server.db.selectFrom('apps').select('secret_hash').execute();
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      // Secrets the server generated: SHA-256 (480 random bits); chosen ones: scrypt.
      expect(row.secret_hash).toMatch(/^(sha256\$[0-9a-f]{64}|scrypt\$16384\$8\$1\$[\w-]{22}\$[\w-]{43})$/);
      expect(row.secret_hash).not.toContain(t.merchant.client_secret);
    }
    const tokens = await t.server.db.selectFrom('access_tokens').select('token_hash').execute();
    expect(tokens.some((row) => row.token_hash === t.merchant.token)).toBe(false);
    expect(tokens.every((row) => /^[0-9a-f]{64}$/.test(row.token_hash))).toBe(true);
  });
});

describe('error shape and validation', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ memory: true });
  });
  afterAll(() => t.close());

  function expectErrorShape(body: Record<string, unknown>) {
    expect(typeof body.name).toBe('string');
    expect(typeof body.message).toBe('string');
    expect(body.debug_id).toMatch(/^[0-9a-f]{14}$/);
    expect(Array.isArray(body.links)).toBe(true);
  }

  it('answers an unknown route with 404 RESOURCE_NOT_FOUND', async () => {
    const result = await t.request('GET', '/v2/nothing/here');
    expect(result.status).toBe(404);
    expect(result.body.name).toBe('RESOURCE_NOT_FOUND');
    expectErrorShape(result.body);
  });

  it('marks every answer as not to be cached: success, refusal, unknown route, wrong method', async () => {
    const answers = [
      await t.request('GET', '/_payctl/clock'),
      await t.request('GET', '/_payctl/clock', { token: null }),
      await t.request('GET', '/_payctl/clock', { token: 'A21AAnot-a-token' }),
      await t.request('GET', '/v2/nothing/here'),
      await t.request('DELETE', '/_payctl/clock'),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 401, 401, 404, 405]);
    for (const answer of answers) expect(answer.headers.get('cache-control')).toBe('no-store');
    // Refused by Node's HTTP parser before Fastify (headers over the limit): answered on the socket.
    const { port } = new URL(t.url);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(`GET /_payctl/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(70_000)}\r\n\r\n`);
      });
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString('latin1')));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 431 /);
    expect(raw).toMatch(/\r\nCache-Control: no-store\r\n/);
  });

  /** One request on a fresh socket, read to the server's close: the status line, the headers and every byte after them. */
  async function rawExchange(request: string): Promise<{ head: string; body: Buffer }> {
    const { port } = new URL(t.url);
    const bytes = await new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      const socket = connect(Number(port), '127.0.0.1', () => socket.write(request));
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('close', () => resolve(Buffer.concat(chunks)));
      socket.on('error', reject);
    });
    const end = bytes.indexOf('\r\n\r\n');
    return { head: bytes.subarray(0, end).toString('latin1'), body: bytes.subarray(end + 4) };
  }

  it('answers HEAD as GET without the body: same status and headers, the length of the GET body', async () => {
    const path = '/_payctl/clock';
    const request = (method: string, auth: string) =>
      `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Connection: close\r\n\r\n`;
    const bearer = `Authorization: Bearer ${t.merchant.token}\r\n`;
    const get = await rawExchange(request('GET', bearer));
    const head = await rawExchange(request('HEAD', bearer));
    expect(get.head).toMatch(/^HTTP\/1\.1 200 /);
    expect(head.head).toMatch(/^HTTP\/1\.1 200 /);
    expect(head.body.length).toBe(0);
    const length = (text: string) => /\r\ncontent-length: (\d+)/i.exec(text)?.[1];
    expect(length(head.head)).toBe(String(get.body.length));
    expect(head.head).toMatch(/\r\ncontent-type: application\/json/i);
    expect(head.head).toMatch(/\r\ncache-control: no-store/i);
    // Authentication is the GET route's: no token, 401, and still no body.
    const refused = await rawExchange(request('HEAD', ''));
    expect(refused.head).toMatch(/^HTTP\/1\.1 401 /);
    expect(refused.body.length).toBe(0);
    // A path only POST serves: 405, as for any other method.
    const notServed = await rawExchange(`HEAD /v1/oauth2/token HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    expect(notServed.head).toMatch(/^HTTP\/1\.1 405 /);
    expect(notServed.head).toMatch(/\r\nallow: POST\r\n/i);
    expect(notServed.body.length).toBe(0);
  });

  it('logs a HEAD request as HEAD, though the GET route serves it', async () => {
    const lines: string[] = [];
    const logged = await startTestServer({ logLevel: 'info', logDestination: { write: (line) => void lines.push(line) } });
    try {
      const { port } = new URL(logged.url);
      await new Promise<void>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () =>
          socket.write('HEAD /_payctl/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'),
        );
        socket.on('data', () => undefined);
        socket.on('close', () => resolve());
        socket.on('error', reject);
      });
      const incoming = lines.map((line) => JSON.parse(line) as { msg?: string; req?: { method?: string; url?: string } }).filter((entry) => entry.msg === 'incoming request');
      expect(incoming.map((entry) => `${entry.req?.method} ${entry.req?.url}`)).toContain('HEAD /_payctl/health');
    } finally {
      await logged.close();
    }
  });

  it('lists HEAD beside GET among the allowed methods of a GET route', async () => {
    const result = await t.request('DELETE', '/_payctl/health');
    expect(result.status).toBe(405);
    expect(result.headers.get('allow')).toBe('GET, HEAD');
  });

  it('answers a wrong method with 405 and the allowed methods', async () => {
    const result = await t.request('DELETE', '/_payctl/clock');
    expect(result.status).toBe(405);
    expect(result.body.name).toBe('METHOD_NOT_SUPPORTED');
    expect(result.headers.get('allow')).toContain('POST');
  });

  it('answers malformed JSON with 400 MALFORMED_REQUEST_JSON', async () => {
    const result = await t.request('POST', '/_payctl/clock', { raw: '{"advance_seconds": ', headers: { 'content-type': 'application/json' } });
    expect(result.status).toBe(400);
    expect(result.body.name).toBe('INVALID_REQUEST');
    expect(result.body.details[0].issue).toBe('MALFORMED_REQUEST_JSON');
    expect(result.body.details[0].location).toBe('body');
  });

  it('answers a wrong content type with 415', async () => {
    const result = await t.request('POST', '/_payctl/clock', { raw: 'advance=1', headers: { 'content-type': 'text/plain' } });
    expect(result.status).toBe(415);
    expect(result.body.name).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(result.body.details[0].location).toBe('header');
  });

  it('answers a body over the limit with 413 and changes nothing', async () => {
    const result = await t.request('POST', '/_payctl/clock', { body: { advance_seconds: 5, pad: 'x'.repeat(1_100_000) } });
    expect(result.status).toBe(413);
    expect(result.body.name).toBe('PAYLOAD_TOO_LARGE');
    expect((await t.request('GET', '/_payctl/clock')).body.offset_seconds).toBe(0);
  });

  it.each([
    ['a missing field', {}, '/advance_seconds', 'MISSING_REQUIRED_PARAMETER', undefined],
    ['a wrong type', { advance_seconds: 'ten' }, '/advance_seconds', 'INVALID_PARAMETER_SYNTAX', 'ten'],
    ['a value below the minimum', { advance_seconds: -1 }, '/advance_seconds', 'INVALID_INTEGER_MIN_VALUE', '-1'],
    ['a value above the maximum', { advance_seconds: 1e12 }, '/advance_seconds', 'INVALID_INTEGER_MAX_VALUE', '1000000000000'],
  ])('rejects %s with a JSON pointer and issue, and changes nothing', async (_label, body, field, issue, value) => {
    const result = await t.request('POST', '/_payctl/clock', { body });
    expect(result.status).toBe(400);
    expect(result.body.name).toBe('INVALID_REQUEST');
    expect(result.body.details).toHaveLength(1);
    expect(result.body.details[0]).toMatchObject({ field, issue, location: 'body' });
    if (value !== undefined) expect(result.body.details[0].value).toBe(value);
    expect((await t.request('GET', '/_payctl/clock')).body.offset_seconds).toBe(0);
  });

  it('rejects too long strings and bad patterns', async () => {
    const tooLong = await t.request('POST', '/_payctl/accounts', { token: t.adminKey, body: { email: `${'a'.repeat(300)}@example.com` } });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.details.map((d: { issue: string }) => d.issue)).toContain('INVALID_STRING_MAX_LENGTH');
    const pattern = await t.request('POST', '/_payctl/consents', { token: t.adminKey, body: { platform_client_id: 'x', payer_id: 'lower-case-id' } });
    expect(pattern.status).toBe(400);
    expect(pattern.body.details[0]).toMatchObject({ field: '/payer_id', issue: 'INVALID_PARAMETER_SYNTAX', location: 'body' });
  });

  it('checks header lengths: Authorization up to 16000, Service-Request-Id 1..10000', async () => {
    const longAuth = await t.request('GET', '/_payctl/clock', { token: null, headers: { authorization: `Bearer ${'a'.repeat(16_001)}` } });
    expect(longAuth.status).toBe(400);
    expect(longAuth.body.details[0]).toMatchObject({ field: 'Authorization', location: 'header', issue: 'INVALID_STRING_MAX_LENGTH' });
    const atLimit = await t.request('GET', '/_payctl/clock', { token: null, headers: { authorization: `Bearer ${'a'.repeat(15_993)}` } });
    expect(atLimit.status).toBe(401);
    const longId = await t.request('GET', '/_payctl/clock', { headers: { 'Service-Request-Id': 'r'.repeat(10_001) } });
    expect(longId.status).toBe(400);
    expect(longId.body.details[0]).toMatchObject({ field: 'Service-Request-Id', location: 'header', issue: 'INVALID_STRING_MAX_LENGTH' });
    const aliasId = await t.request('GET', '/_payctl/clock', { headers: { 'PayPal-Request-Id': 'r'.repeat(10_001) } });
    expect(aliasId.body.details[0].field).toBe('PayPal-Request-Id');
    expect((await t.request('GET', '/_payctl/clock', { headers: { 'Service-Request-Id': 'r'.repeat(10_000) } })).status).toBe(200);
  });

  it('keeps the control plane admin calls behind the admin key', async () => {
    const withMerchantToken = await t.request('POST', '/_payctl/accounts', { body: {} });
    expect(withMerchantToken.status).toBe(403);
    expect(withMerchantToken.body).toMatchObject({ name: 'NOT_AUTHORIZED', details: [{ issue: 'PERMISSION_DENIED' }] });
    const health = await t.request('GET', '/_payctl/health', { token: null });
    expect(health.body.status).toBe('ok');
  });
});

describe('acting for a merchant with Service-Auth-Assertion', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ memory: true });
  });
  afterAll(() => t.close());

  it('needs consent, the caller as issuer, and alg none', async () => {
    const platform = await t.createMerchant('platform@example.com');
    const seller = await t.createMerchant('seller@example.com');
    const good = assertion({ alg: 'none' }, { iss: platform.client_id, payer_id: seller.payer_id });

    const withoutConsent = await t.request('GET', '/_payctl/whoami', { token: platform.token, headers: { 'Service-Auth-Assertion': good } });
    expect(withoutConsent.status).toBe(403);
    expect(withoutConsent.body).toMatchObject({ name: 'NOT_AUTHORIZED', details: [{ issue: 'PERMISSION_DENIED', location: 'header' }] });

    const consent = await t.request('POST', '/_payctl/consents', {
      token: t.adminKey,
      body: { platform_client_id: platform.client_id, payer_id: seller.payer_id },
    });
    expect(consent.status).toBe(201);

    const acting = await t.request('GET', '/_payctl/whoami', { token: platform.token, headers: { 'Service-Auth-Assertion': good } });
    expect(acting.status).toBe(200);
    expect(acting.body.payer_id).toBe(seller.payer_id);
    const alias = await t.request('GET', '/_payctl/whoami', { token: platform.token, headers: { 'PayPal-Auth-Assertion': good } });
    expect(alias.body.payer_id).toBe(seller.payer_id);
    // Without the header the platform acts for itself.
    expect((await t.request('GET', '/_payctl/whoami', { token: platform.token })).body.payer_id).toBe(platform.payer_id);

    const signed = assertion({ alg: 'HS256' }, { iss: platform.client_id, payer_id: seller.payer_id });
    const wrongAlg = await t.request('GET', '/_payctl/whoami', { token: platform.token, headers: { 'Service-Auth-Assertion': signed } });
    expect(wrongAlg.status).toBe(400);
    expect(wrongAlg.body.details[0].issue).toBe('INVALID_PARAMETER_SYNTAX');

    const otherIssuer = assertion({ alg: 'none' }, { iss: seller.client_id, payer_id: seller.payer_id });
    const mismatch = await t.request('GET', '/_payctl/whoami', { token: platform.token, headers: { 'Service-Auth-Assertion': otherIssuer } });
    expect(mismatch.status).toBe(401);
    expect(mismatch.body.name).toBe('AUTHENTICATION_FAILURE');

    for (const malformed of ['not-a-jwt', 'a.b.c', `${b64url({ alg: 'none' })}.!!!.`]) {
      const result = await t.request('GET', '/_payctl/whoami', { token: platform.token, headers: { 'Service-Auth-Assertion': malformed } });
      expect(result.status).toBe(400);
    }
    // The seller's own token cannot be used to act for the platform without consent the other way.
    const reverse = assertion({ alg: 'none' }, { iss: seller.client_id, payer_id: platform.payer_id });
    expect((await t.request('GET', '/_payctl/whoami', { token: seller.token, headers: { 'Service-Auth-Assertion': reverse } })).status).toBe(403);
  });
});

describe('timestamp text', () => {
  it('is toISOString to the second (isoSeconds) and to the millisecond (isoMillis), whatever order times come in', () => {
    // The formatted second is remembered between calls: alternate seconds, go back, cross zero and year 10000.
    const edges = [0, 1, 999, 1000, 1001, -1, -999, -1000, -1001, 1_763_780_000_010, 1_763_780_000_999, 1_763_780_001_000, 1_763_780_000_100, 253_402_300_799_999, 253_402_300_800_000, -62_198_755_200_000, 8.64e15, -8.64e15];
    let seed = 42;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31);
    const spread = Array.from({ length: 2_000 }, () => (next() - 2 ** 30) * 2_000 + (next() % 1_000));
    for (const ms of [...edges, ...edges.reverse(), ...spread, ...spread.map((value) => value + 1)]) {
      const date = new Date(ms);
      expect(isoMillis(date)).toBe(date.toISOString());
      expect(isoSeconds(date)).toBe(date.toISOString().replace(/\.\d{3}Z$/, 'Z'));
      expect(isoMillis(date)).toBe(date.toISOString());
    }
    expect(() => isoSeconds(new Date(Number.NaN))).toThrow(RangeError);
    expect(() => isoMillis(new Date(Number.NaN))).toThrow(RangeError);
  });
});

describe('clock and reset', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ memory: true });
  });
  afterAll(() => t.close());

  it('keeps one clock per account, forward only', async () => {
    const other = await t.createMerchant();
    await t.advanceClock(3600);
    const mine = await t.request('GET', '/_payctl/clock');
    const theirs = await t.request('GET', '/_payctl/clock', { token: other.token });
    expect(mine.body.offset_seconds).toBe(3600);
    expect(theirs.body.offset_seconds).toBe(0);
    expect(Date.parse(mine.body.now) - Date.parse(theirs.body.now)).toBeGreaterThanOrEqual(3_599_000);
  });

  it('resets the caller account (clock back to now), or all with the admin key', async () => {
    const reset = await t.request('POST', '/_payctl/reset');
    expect(reset.body).toEqual({ reset: 'account' });
    expect((await t.request('GET', '/_payctl/clock')).body.offset_seconds).toBe(0);
    const all = await t.request('POST', '/_payctl/reset', { token: t.adminKey });
    expect(all.body).toEqual({ reset: 'all' });
  });
});

describe('rate limiting', () => {
  it('answers 429 RATE_LIMIT_REACHED with Retry-After past the burst', async () => {
    const t = await startTestServer({ memory: true, config: { rateLimitPerSecond: 1, rateLimitBurst: 3 } });
    try {
      const statuses: number[] = [];
      let retryAfter: string | null = null;
      for (let i = 0; i < 5; i += 1) {
        const result = await t.request('GET', '/_payctl/clock');
        statuses.push(result.status);
        if (result.status === 429) {
          retryAfter = result.headers.get('retry-after');
          expect(result.body.name).toBe('RATE_LIMIT_REACHED');
        }
      }
      expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
      expect(statuses.slice(3)).toContain(429);
      expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    } finally {
      await t.close();
    }
  });
});

describe('storage gates', () => {
  // SQLite only (the SQLite half runs it): SQLite's storage and driver (postgres-storage.test.ts covers PostgreSQL's guard).
  it.skipIf(onPostgres)('fails fast, instead of deadlocking, on a root-handle query inside a transaction', async () => {
    const opened = openDatabase(':memory:');
    try {
      await expect(
        createSqliteStorage(opened.db, { groupCommit: false }).transaction({ name: 'test' }, async () => opened.db.selectFrom('settings').selectAll().execute()),
      ).rejects.toThrow(/inside a transaction/);
      // The connection is free again afterwards.
      expect(await opened.db.selectFrom('schema_migrations').selectAll().execute().catch(() => 'no table')).toBe('no table');
      await opened.db.transaction().execute(async (trx) => {
        await trx.selectFrom('sqlite_master' as never).selectAll().execute();
      });
    } finally {
      await closeDatabase(opened);
    }
  });

  // SQLite only (the SQLite half runs it): the single SQLite connection's wait limit.
  it.skipIf(onPostgres)('refuses a query left waiting for the connection (the deadlock the guard catches in tests) and recovers', async () => {
    const sqlite = new BetterSqlite3(':memory:');
    sqlite.defaultSafeIntegers(true);
    const db = new Kysely<Database>({ dialect: new BetterSqliteDialect(sqlite, { connectionWaitLimitMs: 200 }) });
    try {
      await sql`create table t (x integer)`.execute(db);
      // A bare Kysely transaction is outside the guard's scope, as every transaction is in serve.
      await expect(
        db.transaction().execute(async (trx) => {
          await sql`insert into t values (1)`.execute(trx);
          await sql`select x from t`.execute(db);
        }),
      ).rejects.toThrow(/waited 200 ms for the database connection/);
      // The transaction rolled back and the connection serves the next holders in turn.
      expect((await sql<{ x: bigint }>`select x from t`.execute(db)).rows).toEqual([]);
      await db.transaction().execute(async (trx) => {
        await sql`insert into t values (2)`.execute(trx);
      });
      const [a, b] = await Promise.all([sql<{ x: bigint }>`select x from t`.execute(db), sql<{ x: bigint }>`select count(*) as x from t`.execute(db)]);
      expect(a.rows).toEqual([{ x: 2n }]);
      expect(b.rows).toEqual([{ x: 1n }]);
    } finally {
      await db.destroy();
      sqlite.close();
    }
  });

  // SQLite only (the SQLite half runs it): SQLite's pragmas.
  it.skipIf(onPostgres)('refuses to run when a pragma did not take', () => {
    const sqlite = new BetterSqlite3(':memory:');
    sqlite.defaultSafeIntegers(true);
    // An in-memory database cannot use WAL: asked to behave as a file, the gate must refuse.
    expect(() => applyPragmas(sqlite, false)).toThrow(/journal_mode is memory, expected wal/);
    sqlite.close();
  });

  // SQLite only (the SQLite half runs it): SQLite's savepoint journal.
  it.skipIf(onPostgres)('keeps a savepoint\'s journal in memory: a request rewriting 400 KB opens no temporary file', async () => {
    // Group commit runs each request in a savepoint; past 64 KB SQLite would move the savepoint's
    // journal (the originals of the pages it changed) to a temporary file (etilqs_*) and write every
    // changed page there as well as to the WAL.
    const dir = mkdtempSync(join(tmpdir(), 'payctl-savepoint-'));
    const opened = openDatabase(join(dir, 'p.db'));
    const temporaryFiles = () =>
      readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`).includes('etilqs_');
        } catch {
          return false;
        }
      }).length;
    try {
      const { sqlite } = opened;
      sqlite.exec('CREATE TABLE blobs (id INTEGER PRIMARY KEY, body BLOB)');
      const insert = sqlite.prepare('INSERT INTO blobs (body) VALUES (randomblob(1000))');
      sqlite.transaction(() => {
        for (let i = 0; i < 400; i += 1) insert.run();
      })();
      const before = temporaryFiles();
      sqlite.exec('BEGIN');
      sqlite.exec('SAVEPOINT request');
      sqlite.exec('UPDATE blobs SET body = randomblob(1000)');
      const during = temporaryFiles();
      sqlite.exec('ROLLBACK TO request');
      sqlite.exec('RELEASE request');
      sqlite.exec('COMMIT');
      expect(sqlite.pragma('temp_store', { simple: true })).toBe(2n);
      expect(during - before).toBe(0);
    } finally {
      await closeDatabase(opened);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // SQLite's pragmas: PostgreSQL has no file of its own to open.
  it.skipIf(onPostgres)('opens a file with WAL, synchronous=FULL, foreign keys and a busy timeout', async () => {
    const t = await startTestServer();
    try {
      const sqlite = new BetterSqlite3(t.dbPath, { readonly: true });
      expect(sqlite.pragma('journal_mode', { simple: true })).toBe('wal');
      sqlite.close();
    } finally {
      await t.close();
    }
  });

  // SQLite only (the SQLite half runs it): migrates a SQLite database directly.
  it.skipIf(onPostgres)('migration 0010 turns stored REVERSED captures into REFUNDED with their reason', () => {
    const sqlite = new BetterSqlite3(':memory:');
    try {
      migrate(sqlite, '2026-01-01T00:00:00Z');
      sqlite.pragma('foreign_keys = OFF');
      const insert = sqlite.prepare(
        `INSERT INTO captures (id, account_id, order_id, reference_id, status, status_reason, currency, amount_minor, details, create_time, update_time)
         VALUES (?, 'A', 'O', 'default', ?, ?, 'USD', 100, '{}', 't', 't')`,
      );
      insert.run('C1', 'REVERSED', 'BUYER_COMPLAINT');
      insert.run('C2', 'REVERSED', null);
      insert.run('C3', 'COMPLETED', null);
      // As a database written before 0010: its record removed, the migration runs again.
      sqlite.exec('DELETE FROM schema_migrations WHERE id = 10');
      expect(migrate(sqlite, '2026-01-01T00:00:00Z')).toEqual([10]);
      expect(sqlite.prepare('SELECT id, status, status_reason FROM captures ORDER BY id').all()).toEqual([
        { id: 'C1', status: 'REFUNDED', status_reason: 'BUYER_COMPLAINT' },
        { id: 'C2', status: 'REFUNDED', status_reason: 'BUYER_COMPLAINT' },
        { id: 'C3', status: 'COMPLETED', status_reason: null },
      ]);
    } finally {
      sqlite.close();
    }
  });

  // SQLite only (the SQLite half runs it): migrates a SQLite database directly (postgres-storage.test.ts covers PostgreSQL's migration).
  it.skipIf(onPostgres)('migrates all or nothing: a failing migration leaves the database as it was', () => {
    const sqlite = new BetterSqlite3(':memory:');
    try {
      // A table that a later migration (invoicing) creates: that migration fails.
      sqlite.exec('CREATE TABLE invoices (id TEXT)');
      expect(() => migrate(sqlite, '2026-01-01T00:00:00Z')).toThrow(/invoices already exists/);
      const tables = () => (sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{ name: string }>).map((row) => row.name);
      expect(tables()).toEqual(['invoices']);
      sqlite.exec('DROP TABLE invoices');
      expect(migrate(sqlite, '2026-01-01T00:00:00Z')).toEqual(MIGRATIONS.map((migration) => migration.id));
      expect(tables()).toEqual(expect.arrayContaining(['accounts', 'invoices', 'schema_migrations']));
      expect(migrate(sqlite, '2026-01-01T00:00:00Z')).toEqual([]);
    } finally {
      sqlite.close();
    }
  });

  it('refuses a database written by a newer payctl, and keeps credentials across restarts', async () => {
    const first = await startTestServer();
    const { dbPath } = first;
    const credentials = first.server.defaultCredentials;
    await first.server.close();

    const second = await startServer({ dbPath, logLevel: 'silent' });
    expect(second.defaultCredentials).toEqual(credentials);
    expect(second.adminKey).toBe(first.adminKey);
    await second.close();

    const storage = await openStorageAt(dbPath);
    await storage.transaction({ name: 'test' }, (trx) =>
      trx.insertInto('schema_migrations').values({ id: 9999n, name: 'future', applied_at: '2030-01-01T00:00:00Z' }).execute(),
    );
    await storage.close();
    await expect(startServer({ dbPath, logLevel: 'silent' })).rejects.toThrow(/newer payctl/);
    await first.close().catch(() => undefined);
  });

  it('on restart: a lost credentials file means a new secret and a warning; a given secret replaces the stored one', async () => {
    const first = await startTestServer();
    const { dbPath } = first;
    const original = first.server.defaultCredentials;
    await first.server.close();
    const tokenStatus = async (url: string, clientId: string, secret: string) =>
      (
        await fetch(`${url}/v1/oauth2/token`, {
          method: 'POST',
          headers: {
            authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
            'content-type': 'application/x-www-form-urlencoded',
          },
          body: 'grant_type=client_credentials',
        })
      ).status;

    rmSync(credentialsFileOf(dbPath));
    const lines: string[] = [];
    const second = await startServer({ dbPath, logLevel: 'warn', logDestination: { write: (line) => void lines.push(line) } });
    try {
      expect(second.defaultCredentials.payer_id).toBe(original.payer_id);
      expect(second.defaultCredentials.client_id).toBe(original.client_id);
      expect(second.defaultCredentials.client_secret).not.toBe(original.client_secret);
      expect(lines.join('')).toMatch(/could not be recovered/);
      expect(await tokenStatus(second.url, original.client_id, original.client_secret)).toBe(401);
      expect(await tokenStatus(second.url, original.client_id, second.defaultCredentials.client_secret)).toBe(200);
      // A secret the server generated is stored as its SHA-256.
      const stored = await second.db.selectFrom('apps').select('secret_hash').where('client_id', '=', original.client_id).executeTakeFirstOrThrow();
      expect(stored.secret_hash).toBe(`sha256$${createHash('sha256').update(second.defaultCredentials.client_secret).digest('hex')}`);
    } finally {
      await second.close();
    }

    const third = await startServer({ dbPath, logLevel: 'silent', clientSecret: 'chosen-on-the-command-line' });
    try {
      expect(third.defaultCredentials.client_secret).toBe('chosen-on-the-command-line');
      expect(await tokenStatus(third.url, original.client_id, second.defaultCredentials.client_secret)).toBe(401);
      expect(await tokenStatus(third.url, original.client_id, 'chosen-on-the-command-line')).toBe(200);
      // A chosen secret (perhaps a weak one) gets scrypt.
      const stored = await third.db.selectFrom('apps').select('secret_hash').where('client_id', '=', original.client_id).executeTakeFirstOrThrow();
      expect(stored.secret_hash.startsWith('scrypt$')).toBe(true);
    } finally {
      await third.close();
    }
    // The file now remembers the chosen secret: the next start needs no flag and warns of nothing.
    const fourth = await startServer({ dbPath, logLevel: 'silent' });
    expect(fourth.defaultCredentials.client_secret).toBe('chosen-on-the-command-line');
    await fourth.close();
    await first.close().catch(() => undefined);
  });

  it('fixes the default app credentials when given', async () => {
    const t = await startTestServer({ clientId: 'ci-client', clientSecret: 'ci-secret', adminKey: 'ci-admin' });
    try {
      expect(t.server.defaultCredentials.client_id).toBe('ci-client');
      // A chosen (here weak) secret on a fresh database is stored with scrypt, never as a SHA-256.
      const stored = await t.server.db.selectFrom('apps').select('secret_hash').where('client_id', '=', 'ci-client').executeTakeFirstOrThrow();
      expect(stored.secret_hash).toMatch(/^scrypt\$/);
      expect(t.adminKey).toBe('ci-admin');
      const token = await t.tokenFor('ci-client', 'ci-secret');
      expect((await t.request('GET', '/_payctl/whoami', { token })).body.client_id).toBe('ci-client');
    } finally {
      await t.close();
    }
  });
});
