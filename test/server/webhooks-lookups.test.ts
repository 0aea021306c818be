// Webhook lookups over HTTP: create, list, get, delete; one per app; tenancy and request ids.

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type Merchant, type TestServer } from '../helpers/server.js';

let t: TestServer;
let other: Merchant;

beforeAll(async () => {
  t = await startTestServer({ memory: true });
  other = await t.createMerchant('other-lookups@example.com');
});
afterAll(async () => t.close());

const LOOKUPS = '/v1/notifications/webhooks-lookup';
const create = (headers: Record<string, string> = {}, token?: string) =>
  t.request('POST', LOOKUPS, { body: {}, headers, ...(token ? { token } : {}) });

describe('webhooks-lookup', () => {
  it('creates the calling app lookup (201), lists it, gets it, deletes it (204), then it is gone', async () => {
    const created = await create();
    expect(created.status, created.text).toBe(201);
    const id = created.body.id as string;
    expect(created.body).toEqual({
      id,
      client_id: t.merchant.client_id,
      links: [
        { href: `${t.url}${LOOKUPS}/${id}`, rel: 'self', method: 'GET' },
        { href: `${t.url}${LOOKUPS}/${id}`, rel: 'delete', method: 'DELETE' },
      ],
    });
    expect((await t.request('GET', LOOKUPS)).body).toEqual({ webhooks_lookups: [created.body] });
    expect((await t.request('GET', `${LOOKUPS}/${id}`)).body).toEqual(created.body);

    const again = await create();
    expect(again.status).toBe(422);
    expect(again.body.details[0]).toMatchObject({ issue: 'WEBHOOK_LOOKUP_ALREADY_EXISTS', value: id });

    const deleted = await t.request('DELETE', `${LOOKUPS}/${id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await t.request('GET', `${LOOKUPS}/${id}`)).status).toBe(404);
    expect((await t.request('DELETE', `${LOOKUPS}/${id}`)).status).toBe(404);
    expect((await t.request('GET', LOOKUPS)).body).toEqual({ webhooks_lookups: [] });
  });

  it("is invisible to another merchant: 404 on get and delete, absent from its list", async () => {
    const created = await create();
    const id = created.body.id as string;
    expect((await t.request('GET', `${LOOKUPS}/${id}`, { token: other.token })).status).toBe(404);
    const denied = await t.request('DELETE', `${LOOKUPS}/${id}`, { token: other.token });
    expect(denied.status).toBe(404);
    expect(denied.body.details[0]).toMatchObject({ issue: 'INVALID_RESOURCE_ID', field: 'webhook_lookup_id', location: 'path' });
    expect((await t.request('GET', LOOKUPS, { token: other.token })).body).toEqual({ webhooks_lookups: [] });
    // The other merchant's own app has its own lookup.
    const theirs = await create({}, other.token);
    expect(theirs.status).toBe(201);
    expect(theirs.body.client_id).toBe(other.client_id);
    expect((await t.request('GET', `${LOOKUPS}/${id}`)).status).toBe(200);
    await t.request('DELETE', `${LOOKUPS}/${id}`);
  });

  it('replays a create and a delete sent again with the same request id', async () => {
    const key = randomUUID();
    const first = await create({ 'service-request-id': key });
    const replay = await create({ 'service-request-id': key });
    expect([first.status, replay.status]).toEqual([201, 201]);
    expect(replay.body).toEqual(first.body);
    expect((await t.request('GET', LOOKUPS)).body.webhooks_lookups).toHaveLength(1);
    const deleteKey = { 'service-request-id': randomUUID() };
    const path = `${LOOKUPS}/${first.body.id}`;
    expect((await t.request('DELETE', path, { headers: deleteKey })).status).toBe(204);
    expect((await t.request('DELETE', path, { headers: deleteKey })).status).toBe(204);
    expect((await t.request('DELETE', path)).status).toBe(404);
  });

  it('refuses a body that is not an object and an id of the wrong form', async () => {
    const bad = await t.request('POST', LOOKUPS, { body: [1] });
    expect(bad.status).toBe(400);
    expect(bad.body.details[0].location).toBe('body');
    const wrongId = await t.request('GET', `${LOOKUPS}/${'x'.repeat(300)}`);
    expect(wrongId.status).toBe(400);
    expect(wrongId.body.details[0]).toMatchObject({ field: '/webhook_lookup_id', location: 'path' });
  });
});
