// Webhook subscriptions over HTTP: create, list, get, update, delete, event types, limits, tenancy.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type Merchant, type TestServer } from '../helpers/server.js';

let t: TestServer;
let other: Merchant;

beforeAll(async () => {
  t = await startTestServer({ memory: true });
  other = await t.createMerchant();
});
afterAll(async () => t.close());

const create = (url: string, names: string[] = ['PAYMENT.CAPTURE.COMPLETED'], token?: string) =>
  t.request('POST', '/v1/notifications/webhooks', {
    body: { url, event_types: names.map((name) => ({ name })) },
    ...(token ? { token } : {}),
  });

async function deleteAll(token?: string): Promise<void> {
  const list = await t.request('GET', '/v1/notifications/webhooks', token ? { token } : {});
  for (const hook of list.body.webhooks) {
    await t.request('DELETE', `/v1/notifications/webhooks/${hook.id}`, token ? { token } : {});
  }
}

describe('subscriptions', () => {
  it('creates a webhook and answers 201 with described event types and links', async () => {
    const created = await create('http://127.0.0.1:9/hooks', ['PAYMENT.CAPTURE.COMPLETED', 'PAYMENT.CAPTURE.REFUNDED']);
    expect(created.status).toBe(201);
    expect(created.body.id).toMatch(/^[A-Z0-9]{17}$/);
    expect(created.body.url).toBe('http://127.0.0.1:9/hooks');
    expect(created.body.event_types).toEqual([
      {
        name: 'PAYMENT.CAPTURE.COMPLETED',
        description: 'A capture of an authorized payment completed.',
        status: 'ENABLED',
        resource_versions: ['2.0'],
      },
      {
        name: 'PAYMENT.CAPTURE.REFUNDED',
        description: 'The merchant refunded a capture, in full or in part.',
        status: 'ENABLED',
        resource_versions: ['2.0'],
      },
    ]);
    expect(created.body.links).toEqual([
      { href: `${t.url}/v1/notifications/webhooks/${created.body.id}`, rel: 'self', method: 'GET' },
      { href: `${t.url}/v1/notifications/webhooks/${created.body.id}`, rel: 'update', method: 'PATCH' },
      { href: `${t.url}/v1/notifications/webhooks/${created.body.id}`, rel: 'delete', method: 'DELETE' },
    ]);

    const got = await t.request('GET', `/v1/notifications/webhooks/${created.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(created.body);

    const types = await t.request('GET', `/v1/notifications/webhooks/${created.body.id}/event-types`);
    expect(types.status).toBe(200);
    expect(types.body.event_types.map((type: { name: string }) => type.name)).toEqual([
      'PAYMENT.CAPTURE.COMPLETED',
      'PAYMENT.CAPTURE.REFUNDED',
    ]);
    await deleteAll();
  });

  it('subscribes to everything with "*" and de-duplicates names', async () => {
    const all = await create('http://localhost:9/all', ['*', 'PAYMENT.CAPTURE.COMPLETED']);
    expect(all.status).toBe(201);
    expect(all.body.event_types).toEqual([{ name: '*', description: 'All event types, including ones added later.' }]);
    const twice = await create('http://localhost:9/twice', ['PAYMENT.CAPTURE.PENDING', 'PAYMENT.CAPTURE.PENDING']);
    expect(twice.body.event_types.map((type: { name: string }) => type.name)).toEqual(['PAYMENT.CAPTURE.PENDING']);
    await deleteAll();
  });

  it('lists the app webhooks, and the account ones with anchor_type=ACCOUNT', async () => {
    const a = await create('http://127.0.0.1:9/a');
    const b = await create('https://example.com/b');
    const list = await t.request('GET', '/v1/notifications/webhooks');
    expect(list.status).toBe(200);
    expect(list.body.webhooks.map((hook: { id: string }) => hook.id)).toEqual([a.body.id, b.body.id]);
    const account = await t.request('GET', '/v1/notifications/webhooks?anchor_type=ACCOUNT');
    expect(account.body.webhooks).toHaveLength(2);
    const bad = await t.request('GET', '/v1/notifications/webhooks?anchor_type=PLANET');
    expect(bad.status).toBe(400);
    expect(bad.body.details[0]).toMatchObject({ field: '/anchor_type', location: 'query', issue: 'INVALID_PARAMETER_VALUE' });
    await deleteAll();
  });

  it('replaces url and event types with JSON Patch', async () => {
    const hook = await create('http://127.0.0.1:9/old');
    const patched = await t.request('PATCH', `/v1/notifications/webhooks/${hook.body.id}`, {
      body: [
        { op: 'replace', path: '/url', value: 'http://127.0.0.1:9/new' },
        { op: 'replace', path: '/event_types', value: [{ name: 'CUSTOMER.DISPUTE.CREATED' }] },
      ],
    });
    expect(patched.status).toBe(200);
    expect(patched.body.url).toBe('http://127.0.0.1:9/new');
    expect(patched.body.event_types.map((type: { name: string }) => type.name)).toEqual(['CUSTOMER.DISPUTE.CREATED']);
    expect((await t.request('GET', `/v1/notifications/webhooks/${hook.body.id}`)).body.url).toBe('http://127.0.0.1:9/new');
    await deleteAll();
  });

  it.each([
    [[{ op: 'add', path: '/url', value: 'http://127.0.0.1/x' }], '/0/op', 'NOT_SUPPORTED'],
    [[{ op: 'replace', path: '/id', value: 'X' }], '/0/path', 'INVALID_PARAMETER_VALUE'],
    [[{ op: 'replace', path: '/url', value: 'ftp://example.com' }], '/0/value', 'INVALID_PARAMETER_SYNTAX'],
    [[{ op: 'replace', path: '/event_types', value: [{ name: 'NOPE.NOPE' }] }], '/0/value/0/name', 'INVALID_PARAMETER_VALUE'],
    [[{ op: 'replace', path: '/event_types', value: [] }], '/0/value', 'INVALID_ARRAY_MIN_ITEMS'],
    [[], '/', 'INVALID_ARRAY_MIN_ITEMS'],
  ])('refuses the patch %j at %s with %s', async (patch, field, issue) => {
    const hook = await create('http://127.0.0.1:9/patch');
    const result = await t.request('PATCH', `/v1/notifications/webhooks/${hook.body.id}`, { body: patch });
    expect(result.status).toBe(400);
    expect(result.body.name).toBe('INVALID_REQUEST');
    expect(result.body.details[0]).toMatchObject({ field, issue });
    expect((await t.request('GET', `/v1/notifications/webhooks/${hook.body.id}`)).body.url).toBe('http://127.0.0.1:9/patch');
    await deleteAll();
  });

  it('deletes with 204, after which the webhook is not found', async () => {
    const hook = await create('http://127.0.0.1:9/gone');
    const deleted = await t.request('DELETE', `/v1/notifications/webhooks/${hook.body.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    const got = await t.request('GET', `/v1/notifications/webhooks/${hook.body.id}`);
    expect(got.status).toBe(404);
    expect(got.body).toMatchObject({ name: 'RESOURCE_NOT_FOUND', details: [{ issue: 'INVALID_RESOURCE_ID', location: 'path' }] });
    expect((await t.request('DELETE', `/v1/notifications/webhooks/${hook.body.id}`)).status).toBe(404);
  });
});

describe('validation', () => {
  it.each([
    [{ event_types: [{ name: '*' }] }, '/url', 'MISSING_REQUIRED_PARAMETER'],
    [{ url: 'http://127.0.0.1/x' }, '/event_types', 'MISSING_REQUIRED_PARAMETER'],
    [{ url: 'http://127.0.0.1/x', event_types: [] }, '/event_types', 'INVALID_ARRAY_MIN_ITEMS'],
    [{ url: 'http://127.0.0.1/x', event_types: [{ name: 'PAYMENT.NOTHING' }] }, '/event_types/0/name', 'INVALID_PARAMETER_VALUE'],
    [{ url: `http://127.0.0.1/${'x'.repeat(2048)}`, event_types: [{ name: '*' }] }, '/url', 'INVALID_STRING_MAX_LENGTH'],
    [{ url: 'not a url', event_types: [{ name: '*' }] }, '/url', 'INVALID_PARAMETER_SYNTAX'],
    [{ url: 'file:///etc/passwd', event_types: [{ name: '*' }] }, '/url', 'INVALID_PARAMETER_SYNTAX'],
    [{ url: 'http://127.0.0.1/x#frag', event_types: [{ name: '*' }] }, '/url', 'INVALID_PARAMETER_SYNTAX'],
  ])('refuses %j at %s with %s', async (body, field, issue) => {
    const result = await t.request('POST', '/v1/notifications/webhooks', { body });
    expect(result.status).toBe(400);
    expect(result.body.name).toBe('INVALID_REQUEST');
    expect(result.body.details[0]).toMatchObject({ field, issue, location: 'body' });
  });

  it.each([
    'http://169.254.169.254/latest/meta-data',
    'http://169.254.0.1:8080/',
    'http://[fe80::1]/hook',
    'http://[febf::1]/hook',
    'http://[::ffff:169.254.169.254]/hook',
    'http://metadata.google.internal/computeMetadata/v1/',
    'http://METADATA/',
    'http://[fd00:ec2::254]/',
  ])('refuses the link-local or metadata address %s', async (url) => {
    const result = await create(url);
    expect(result.status).toBe(400);
    expect(result.body.details[0]).toMatchObject({ field: '/url', issue: 'INVALID_PARAMETER_VALUE', value: url });
  });

  it.each(['http://127.0.0.1:8080/hooks', 'http://localhost/hooks', 'https://[::1]:9443/x', 'http://169.253.1.1/'])(
    'accepts %s',
    async (url) => {
      const result = await create(url);
      expect(result.status).toBe(201);
      await deleteAll();
    },
  );

  it('allows ten webhooks per app and refuses the eleventh', async () => {
    for (let i = 0; i < 10; i += 1) expect((await create(`http://127.0.0.1:9/n${i}`)).status).toBe(201);
    const eleventh = await create('http://127.0.0.1:9/n10');
    expect(eleventh.status).toBe(422);
    expect(eleventh.body).toMatchObject({ name: 'UNPROCESSABLE_ENTITY', details: [{ issue: 'WEBHOOK_NUMBER_LIMIT_EXCEEDED' }] });
    // Another app has its own ten.
    expect((await create('http://127.0.0.1:9/n0', ['*'], other.token)).status).toBe(201);
    await deleteAll();
    await deleteAll(other.token);
  });

  it('refuses a second webhook with the same URL in one app', async () => {
    expect((await create('http://127.0.0.1:9/same')).status).toBe(201);
    const again = await create('http://127.0.0.1:9/same', ['*']);
    expect(again.status).toBe(422);
    expect(again.body.details[0]).toMatchObject({ issue: 'WEBHOOK_URL_ALREADY_EXISTS', field: '/url' });
    await deleteAll();
  });

  it('replays a create with the same request id instead of making a second webhook', async () => {
    const headers = { 'Service-Request-Id': 'create-once-1' };
    const body = { url: 'http://127.0.0.1:9/once', event_types: [{ name: '*' }] };
    const first = await t.request('POST', '/v1/notifications/webhooks', { body, headers });
    const second = await t.request('POST', '/v1/notifications/webhooks', { body, headers });
    expect(first.status).toBe(201);
    expect(second.body.id).toBe(first.body.id);
    expect((await t.request('GET', '/v1/notifications/webhooks')).body.webhooks).toHaveLength(1);
    await deleteAll();
  });
});

describe('tenancy', () => {
  it("shows nothing of another merchant's webhooks", async () => {
    const mine = await create('http://127.0.0.1:9/mine');
    const path = `/v1/notifications/webhooks/${mine.body.id}`;
    expect((await t.request('GET', path, { token: other.token })).status).toBe(404);
    expect((await t.request('GET', `${path}/event-types`, { token: other.token })).status).toBe(404);
    expect(
      (await t.request('PATCH', path, { token: other.token, body: [{ op: 'replace', path: '/url', value: 'http://127.0.0.1/x' }] })).status,
    ).toBe(404);
    expect((await t.request('DELETE', path, { token: other.token })).status).toBe(404);
    const list = await t.request('GET', '/v1/notifications/webhooks?anchor_type=ACCOUNT', { token: other.token });
    expect(list.body.webhooks).toEqual([]);
    expect((await t.request('GET', path)).body.url).toBe('http://127.0.0.1:9/mine');
    await deleteAll();
  });

  it('needs a bearer token', async () => {
    const result = await t.request('GET', '/v1/notifications/webhooks', { token: null });
    expect(result.status).toBe(401);
    expect(result.body.name).toBe('AUTHENTICATION_FAILURE');
  });
});

describe('event types', () => {
  it('lists every type the server emits, each with a description', async () => {
    const result = await t.request('GET', '/v1/notifications/webhooks-event-types');
    expect(result.status).toBe(200);
    const names = result.body.event_types.map((type: { name: string }) => type.name);
    for (const name of [
      'PAYMENT.CAPTURE.COMPLETED',
      'PAYMENT.CAPTURE.DECLINED',
      'PAYMENT.CAPTURE.PENDING',
      'PAYMENT.CAPTURE.REFUNDED',
      'PAYMENT.AUTHORIZATION.VOIDED',
      'CUSTOMER.DISPUTE.CREATED',
      'PAYMENT.PAYOUTSBATCH.SUCCESS',
      'PAYMENT.PAYOUTS-ITEM.CANCELED',
      'INVOICING.INVOICE.CANCELLED',
    ]) {
      expect(names).toContain(name);
    }
    for (const type of result.body.event_types) {
      expect(type.description.length).toBeGreaterThan(10);
      expect(type.status).toBe('ENABLED');
    }
  });
});
