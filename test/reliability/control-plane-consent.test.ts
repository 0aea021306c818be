// Consent and the control plane: a platform the merchant consented to may use the merchant's API,
// but /_payctl acts only on the caller's own account (or any account with the admin key). Every
// bearer /_payctl route is sent, with a valid request built on the merchant's resources, by the
// consented platform naming the merchant in an assertion: each is refused and changes nothing.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type Merchant } from '../helpers/server.js';
import { changedTables, send, snapshot, type Answer } from './fixtures/http.js';
import { Receiver, Resources, settle } from './fixtures/resources.js';
import { fixtureFor, routeKey, wireRequest } from './fixtures/routes.js';

const t = await startTestServer({ memory: true, config: { jobIntervalMs: 3_600_000 } });
const receiver = await Receiver.start();
const owner = t.merchant;
let platform: Merchant;
let resources: Resources;
const refused: string[] = [];

const b64url = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');
const assertion = (clientId: string, payerId: string): string => `${b64url({ alg: 'none' })}.${b64url({ iss: clientId, payer_id: payerId })}.`;

/** The control-plane routes a bearer token reaches (admin-only and public ones never take an assertion's account). */
const bearerControlPlane = t.server.routes.filter((route) => route.url.startsWith('/_payctl/') && route.auth !== 'admin' && route.auth !== 'none');

beforeAll(async () => {
  platform = await t.createMerchant();
  resources = new Resources(t, owner, receiver);
  const consent = await t.request('POST', '/_payctl/consents', {
    token: t.adminKey,
    body: { platform_client_id: platform.client_id, payer_id: owner.payer_id },
  });
  expect(consent.status).toBe(201);
}, 120_000);

afterAll(async () => {
  await t.close();
  await receiver.close();
  console.log(`control plane with consent: ${refused.length} routes refused an assertion (${refused.join(', ')})`);
});

async function quiet(): Promise<void> {
  await settle(t);
}

function asPlatform(headers: Record<string, string>): Record<string, string> {
  return { ...headers, authorization: `Bearer ${platform.token}`, 'service-auth-assertion': assertion(platform.client_id, owner.payer_id) };
}

describe('a consented platform against /_payctl', () => {
  it('the consent works on the merchant API (positive control)', async () => {
    const authId = await resources.authorization();
    const read = await send(t.url, { method: 'GET', target: `/v2/payments/authorizations/${authId}`, headers: asPlatform({}) });
    expect(read.status).toBe(200);
    expect((read.body as { id: string }).id).toBe(authId);
  });

  it('covers the routes that matter', () => {
    const keys = bearerControlPlane.map(routeKey);
    for (const key of ['POST /_payctl/reset', 'POST /_payctl/clock', 'GET /_payctl/clock', 'POST /_payctl/balances', 'POST /_payctl/disputes']) {
      expect(keys).toContain(key);
    }
  });

  it.each(bearerControlPlane.filter((route) => route.url !== '/_payctl/whoami').map((route) => [routeKey(route), route] as const))(
    '%s is refused and changes nothing',
    async (_key, route) => {
      const request = await fixtureFor(route).build(resources);
      await quiet();
      const before = await snapshot(t.server.db);
      const wire = wireRequest(route, request, { token: platform.token, adminKey: '', clientId: '', clientSecret: '' });
      const answer: Answer = await send(t.url, { method: route.method, ...wire, headers: asPlatform(wire.headers) });
      expect(answer.status, answer.text.slice(0, 300)).toBe(403);
      expect(answer.body).toMatchObject({ name: 'NOT_AUTHORIZED', details: [{ issue: 'PERMISSION_DENIED', field: 'Service-Auth-Assertion', location: 'header' }] });
      await quiet();
      expect(changedTables(before, await snapshot(t.server.db)).filter((table) => !table.startsWith('webhook_dispatch_cursor'))).toEqual([]);
      refused.push(routeKey(route));
    },
  );

  it("reset and clock: the merchant's data and clock stay, while the platform's own calls (no assertion) still work", async () => {
    const authId = await resources.authorization();
    const reset = await send(t.url, { method: 'POST', target: '/_payctl/reset', headers: asPlatform({}) });
    expect(reset.status).toBe(403);
    const clock = await send(t.url, {
      method: 'POST',
      target: '/_payctl/clock',
      headers: asPlatform({ 'content-type': 'application/json' }),
      body: JSON.stringify({ advance_seconds: 86_400 }),
    });
    expect(clock.status).toBe(403);
    expect((await t.request('GET', `/v2/payments/authorizations/${authId}`)).status).toBe(200);
    expect((await t.request('GET', '/_payctl/clock')).body.offset_seconds).toBe(0);

    // Positive controls: the platform moves its own clock, and an assertion naming itself is its own account.
    const own = await t.request('POST', '/_payctl/clock', { token: platform.token, body: { advance_seconds: 60 } });
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ payer_id: platform.payer_id, offset_seconds: 60 });
    const self = await t.request('GET', '/_payctl/clock', {
      token: platform.token,
      headers: { 'service-auth-assertion': assertion(platform.client_id, platform.payer_id) },
    });
    expect(self.body).toMatchObject({ payer_id: platform.payer_id, offset_seconds: 60 });
    // The admin key still reaches every account.
    const adminReset = await t.request('POST', '/_payctl/reset', { token: t.adminKey });
    expect(adminReset.body).toEqual({ reset: 'all' });
    expect((await t.request('GET', `/v2/payments/authorizations/${authId}`)).status).toBe(404);
  });

  it('whoami still answers whom the assertion acts for (it changes nothing)', async () => {
    const who = await t.request('GET', '/_payctl/whoami', { token: platform.token, headers: { 'service-auth-assertion': assertion(platform.client_id, owner.payer_id) } });
    expect(who.status).toBe(200);
    expect(who.body.payer_id).toBe(owner.payer_id);
  });
});
