// OAuth2 client-credentials tokens over real HTTP: the documented fields, refused grants and
// credentials, a lifetime in real time whatever the account clock, nothing stored in the clear.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpRequest, startTestServer, type TestServer } from '../helpers/server.js';

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
