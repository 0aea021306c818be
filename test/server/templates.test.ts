// Invoice templates over HTTP: system templates, create, replace (the spec's PUT and its errors), delete, tenancy.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshTestDatabase, onPostgres } from '../helpers/postgres.js';
import { startTestServer, type Merchant, type TestServer } from '../helpers/server.js';

let server: TestServer;
let other: Merchant;

beforeAll(async () => {
  server = await startTestServer({ memory: true });
  other = await server.createMerchant();
});
afterAll(async () => {
  await server.close();
});

const base = '/v2/invoicing/templates';

function template(name: string, extra: Record<string, unknown> = {}) {
  return {
    name,
    template_info: {
      detail: { currency_code: 'USD', note: 'Thank you', payment_term: { term_type: 'NET_30' } },
      items: [{ name: 'Consulting', quantity: '1', unit_amount: { currency_code: 'USD', value: '100.00' } }],
    },
    settings: { template_item_settings: [{ field_name: 'ITEMS_DATE', display_preference: { hidden: true } }] },
    unit_of_measure: 'HOURS',
    ...extra,
  };
}

async function create(name: string, token?: string, extra: Record<string, unknown> = {}) {
  const response = await server.request('POST', base, { body: template(name, extra), ...(token ? { token } : {}) });
  expect(response.status).toBe(201);
  return response.body as { id: string; name: string; default_template: boolean };
}

describe('system templates', () => {
  it('every merchant starts with Quantity, Hours and Amount, standard and not deletable', async () => {
    const list = await server.request('GET', `${base}?page_size=100`);
    expect(list.status).toBe(200);
    const standard = list.body.templates.filter((t: { standard_template: boolean }) => t.standard_template);
    expect(standard.map((t: { name: string }) => t.name)).toEqual(['Quantity', 'Hours', 'Amount']);
    expect(standard.map((t: { unit_of_measure: string }) => t.unit_of_measure)).toEqual(['QUANTITY', 'HOURS', 'AMOUNT']);
    expect(standard.filter((t: { default_template: boolean }) => t.default_template)).toHaveLength(1);
    expect(list.body.emails).toBe(server.merchant.email);

    // Only the actions that can succeed are offered: no delete link on a system template.
    for (const system of standard) expect(system.links.map((l: { rel: string }) => l.rel)).toEqual(['self', 'replace']);
    const own = list.body.templates.find((t: { standard_template: boolean }) => !t.standard_template);
    if (own) expect(own.links.map((l: { rel: string }) => l.rel)).toEqual(['self', 'replace', 'delete']);
    const removed = await server.request('DELETE', `${base}/${standard[0].id}`);
    expect(removed.status).toBe(403);
    expect(removed.body.name).toBe('NOT_AUTHORIZED');
    expect(removed.body.details[0].issue).toBe('CANNOT_DELETE_GLOBAL_TEMPLATE');
  });

  it('a new merchant has its own three, and fields=none shows only id, name and default flag', async () => {
    const list = await server.request('GET', `${base}?fields=none`, { token: other.token });
    expect(list.status).toBe(200);
    expect(list.body.templates).toHaveLength(3);
    expect(Object.keys(list.body.templates[0]).sort()).toEqual(['default_template', 'id', 'name']);
  });

  it('a read writes nothing: an account made before invoicing existed gets them when a server starts', async () => {
    // A database the test names is kept when its server closes, for the second server to start on.
    const dir = mkdtempSync(join(tmpdir(), 'payctl-templates-'));
    const database = onPostgres ? await freshTestDatabase() : undefined;
    const kept = { dbPath: database?.url ?? join(dir, 'payctl.db'), credentialsFile: join(dir, 'credentials.json') };
    const first = await startTestServer(kept);
    const older = await first.createMerchant();
    const templatesOf = async (db: TestServer['server']['db']) =>
      (await db.selectFrom('invoice_templates').select('name').where('account_id', '=', older.payer_id).orderBy('id').execute()).map((row) => row.name);
    // What an account of a database older than invoicing has: no templates.
    await first.server.db.deleteFrom('invoice_templates').where('account_id', '=', older.payer_id).execute();
    const read = await first.request('GET', base, { token: older.token });
    expect(read.status).toBe(200);
    expect(read.body.templates).toEqual([]);
    expect((await first.request('GET', `${base}/TEMP-NONE`, { token: older.token })).status).toBe(404);
    expect(await templatesOf(first.server.db)).toEqual([]);
    await first.close();

    const second = await startTestServer(kept);
    try {
      expect(await templatesOf(second.server.db)).toEqual(['Quantity', 'Hours', 'Amount']);
    } finally {
      await second.close();
      await database?.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('create and get', () => {
  it('creates a template (201) with an id of at most 30 characters and reads it back', async () => {
    const created = await create('Consulting');
    expect(created.id.length).toBeLessThanOrEqual(30);
    const got = await server.request('GET', `${base}/${created.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({
      id: created.id,
      name: 'Consulting',
      default_template: false,
      standard_template: false,
      unit_of_measure: 'HOURS',
      template_info: { detail: { currency_code: 'USD', note: 'Thank you' } },
    });
    expect(got.body.links[0]).toMatchObject({ rel: 'self', method: 'GET' });
    expect(got.body.links.map((l: { rel: string; method: string }) => `${l.rel} ${l.method}`)).toEqual(['self GET', 'replace PUT', 'delete DELETE']);
  });

  it('keeps an item tax\'s tax_note (spec 2.6)', async () => {
    const item = { name: 'Taxed', quantity: '1', unit_amount: { currency_code: 'USD', value: '10.00' }, tax: { name: 'VAT', percent: '20', tax_note: 'Reverse charge' } };
    const response = await server.request('POST', base, {
      body: { name: 'With tax note', template_info: { detail: { currency_code: 'USD' }, items: [item] } },
    });
    expect(response.status, response.text).toBe(201);
    const got = await server.request('GET', `${base}/${response.body.id}`);
    expect(got.body.template_info.items[0].tax).toMatchObject({ name: 'VAT', percent: '20', tax_note: 'Reverse charge' });
    const tooLong = await server.request('POST', base, {
      body: { name: 'Tax note too long', template_info: { detail: { currency_code: 'USD' }, items: [{ ...item, tax: { ...item.tax, tax_note: 'n'.repeat(101) } }] } },
    });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.details[0].field).toBe('/template_info/items/0/tax/tax_note');
  });

  it('refuses a duplicate name on create with TEMPLATE_NAME_ALREADY_EXISTS', async () => {
    await create('Unique once');
    const again = await server.request('POST', base, { body: template('Unique once') });
    expect(again.status).toBe(400);
    expect(again.body.name).toBe('INVALID_REQUEST');
    expect(again.body.details[0]).toMatchObject({ issue: 'TEMPLATE_NAME_ALREADY_EXISTS', field: '/name', location: 'body' });
  });

  it.each([
    ['', 'INVALID_STRING_LENGTH'],
    ['x'.repeat(501), 'INVALID_STRING_MAX_LENGTH'],
    [undefined, 'MISSING_REQUIRED_PARAMETER'],
  ])('checks the name length (%#)', async (name, issue) => {
    const body = template('ignored');
    (body as { name?: string }).name = name;
    const response = await server.request('POST', base, { body });
    expect(response.status).toBe(400);
    expect(response.body.details[0]).toMatchObject({ issue, field: '/name' });
  });

  it('accepts a name of exactly 500 characters', async () => {
    const created = await create('n'.repeat(500));
    expect(created.name).toHaveLength(500);
  });

  it('keeps at most one default template', async () => {
    const first = await create('Default A', undefined, { default_template: true });
    const second = await create('Default B', undefined, { default_template: true });
    const list = await server.request('GET', `${base}?page_size=100`);
    const defaults = list.body.templates.filter((t: { default_template: boolean }) => t.default_template);
    expect(defaults.map((t: { id: string }) => t.id)).toEqual([second.id]);
    expect(first.id).not.toBe(second.id);
  });
});

describe('PUT /v2/invoicing/templates/{id} (the spec operation)', () => {
  it('answers 200 with the whole template under Prefer: return=representation', async () => {
    const created = await create('Replace me');
    const response = await server.request('PUT', `${base}/${created.id}`, {
      body: { name: 'Replaced', unit_of_measure: 'AMOUNT', template_info: { detail: { currency_code: 'EUR' } } },
      headers: { prefer: 'return=representation' },
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: created.id, name: 'Replaced', unit_of_measure: 'AMOUNT', standard_template: false });
    // Full replacement: the items, note and settings of the old template are gone.
    expect(response.body.template_info.items).toBeUndefined();
    expect(response.body.template_info.detail.note).toBeUndefined();
    expect(response.body.settings).toEqual({});
    const got = await server.request('GET', `${base}/${created.id}`);
    expect(got.body.template_info.detail.currency_code).toBe('EUR');
    expect(got.body.template_info.items).toBeUndefined();
  });

  it('answers 200 with a minimal body (id and links) by default', async () => {
    const created = await create('Minimal reply');
    const response = await server.request('PUT', `${base}/${created.id}`, { body: template('Minimal reply 2') });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['id', 'links']);
    expect(response.body.id).toBe(created.id);
  });

  it('INVALID_REQUEST / TEMPLATE_NAME_ALREADY_EXISTS when renaming to another template\'s name', async () => {
    await create('Taken name');
    const mine = await create('My name');
    const response = await server.request('PUT', `${base}/${mine.id}`, { body: template('Taken name') });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      name: 'INVALID_REQUEST',
      message: 'Request is not well-formed, syntactically incorrect, or violates schema.',
    });
    expect(response.body.details).toEqual([
      expect.objectContaining({ issue: 'TEMPLATE_NAME_ALREADY_EXISTS', field: '/name', value: 'Taken name', location: 'body' }),
    ]);
    expect(typeof response.body.debug_id).toBe('string');
    const unchanged = await server.request('GET', `${base}/${mine.id}`);
    expect(unchanged.body.name).toBe('My name');
  });

  it('refuses the name of a system template too', async () => {
    const mine = await create('Not quantity');
    const response = await server.request('PUT', `${base}/${mine.id}`, { body: template('Quantity') });
    expect(response.status).toBe(400);
    expect(response.body.details[0].issue).toBe('TEMPLATE_NAME_ALREADY_EXISTS');
  });

  it('allows keeping (renaming to) its own name', async () => {
    const mine = await create('Same name');
    const response = await server.request('PUT', `${base}/${mine.id}`, {
      body: template('Same name', { unit_of_measure: 'QUANTITY' }),
      headers: { prefer: 'return=representation' },
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ name: 'Same name', unit_of_measure: 'QUANTITY' });
  });

  it('a name freed by a rename can be taken by another template', async () => {
    const a = await create('Old A');
    await server.request('PUT', `${base}/${a.id}`, { body: template('New A') });
    const b = await create('Old B');
    const response = await server.request('PUT', `${base}/${b.id}`, { body: template('Old A') });
    expect(response.status).toBe(200);
  });

  it('another merchant\'s template: 403 NOT_AUTHORIZED / PERMISSION_DENIED, and it stays as it was', async () => {
    const theirs = await create('Theirs', other.token);
    const response = await server.request('PUT', `${base}/${theirs.id}`, { body: template('Hijacked') });
    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({ name: 'NOT_AUTHORIZED', message: 'Authorization failed due to insufficient permissions.' });
    expect(response.body.details[0].issue).toBe('PERMISSION_DENIED');
    expect(JSON.stringify(response.body)).not.toContain('Theirs');
    const got = await server.request('GET', `${base}/${theirs.id}`, { token: other.token });
    expect(got.body.name).toBe('Theirs');
    for (const method of ['GET', 'DELETE']) {
      const attempt = await server.request(method, `${base}/${theirs.id}`);
      expect(attempt.status).toBe(403);
      expect(attempt.body.details[0].issue).toBe('PERMISSION_DENIED');
    }
  });

  it('an unknown id: 404 RESOURCE_NOT_FOUND', async () => {
    const response = await server.request('PUT', `${base}/TEMP-DOESNOTEXIST00000`, { body: template('Whatever') });
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ name: 'RESOURCE_NOT_FOUND', message: 'The specified resource does not exist.' });
  });

  it('INTERNAL_SERVER_ERROR (simulated): 500 without details, with an information_link', async () => {
    const mine = await create('Will fail');
    const response = await server.request('PUT', `${base}/${mine.id}`, {
      body: template('Will fail'),
      headers: { 'service-mock-response': JSON.stringify({ mock_application_codes: 'INTERNAL_SERVER_ERROR' }) },
    });
    expect(response.status).toBe(500);
    expect(response.body).toMatchObject({ name: 'INTERNAL_SERVER_ERROR', message: 'An internal server error occurred.' });
    expect(response.body.details).toBeUndefined();
    expect(response.body.links[0].rel).toBe('information_link');
  });

  it('validates the body like create (a partial body without a name is refused)', async () => {
    const mine = await create('Partial');
    const response = await server.request('PUT', `${base}/${mine.id}`, { body: { unit_of_measure: 'HOURS' } });
    expect(response.status).toBe(400);
    expect(response.body.details[0]).toMatchObject({ issue: 'MISSING_REQUIRED_PARAMETER', field: '/name' });
  });

  it('setting default_template on PUT clears the previous default', async () => {
    const a = await create('PUT default A', undefined, { default_template: true });
    const b = await create('PUT default B');
    await server.request('PUT', `${base}/${b.id}`, { body: template('PUT default B', { default_template: true }) });
    const getA = await server.request('GET', `${base}/${a.id}`);
    const getB = await server.request('GET', `${base}/${b.id}`);
    expect([getA.body.default_template, getB.body.default_template]).toEqual([false, true]);
  });
});

describe('delete', () => {
  it('deletes a merchant template (204), after which it is 404', async () => {
    const mine = await create('Delete me');
    const removed = await server.request('DELETE', `${base}/${mine.id}`);
    expect(removed.status).toBe(204);
    expect(removed.text).toBe('');
    const got = await server.request('GET', `${base}/${mine.id}`);
    expect(got.status).toBe(404);
  });
});
