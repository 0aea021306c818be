// GET /v2/invoicing/invoices (the spec's list): paging boundaries, totals, links, order, the index.

import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIST_PAGE_SQL } from '../../src/server/invoicing/store.js';
import { onPostgres } from '../helpers/postgres.js';
import { startTestServer, type Merchant, type TestServer } from '../helpers/server.js';
import { createInvoice, simpleInvoice } from './invoicing-helpers.js';

let server: TestServer;
let bulk: Merchant;
const base = '/v2/invoicing/invoices';
const COUNT = 1000;

/** Copies one real invoice COUNT times with distinct ids, numbers and creation times (oldest first). */
async function seedInvoices(merchant: Merchant): Promise<string[]> {
  const template = await createInvoice(server, simpleInvoice('1.00', { invoice_number: 'SEED' }), merchant.token);
  const db = server.server.db;
  const row = await db.selectFrom('invoices').selectAll().where('id', '=', template.id).executeTakeFirstOrThrow();
  await db.deleteFrom('invoices').where('id', '=', template.id).execute();
  const ids: string[] = [];
  await db.transaction().execute(async (trx) => {
    for (let i = 0; i < COUNT; i += 1) {
      const id = `INV2-SEED${String(i).padStart(15, '0')}`;
      const time = new Date(Date.UTC(2025, 0, 1) + i * 1000).toISOString();
      await trx.insertInto('invoices').values({ ...row, id, invoice_number: `N-${i}`, create_time: time, update_time: time }).execute();
      ids.push(id);
    }
  });
  return ids.reverse(); // newest first
}

let newestFirst: string[];

beforeAll(async () => {
  server = await startTestServer({ memory: true });
  bulk = await server.createMerchant();
  newestFirst = await seedInvoices(bulk);
});
afterAll(async () => {
  await server.close();
});

const list = (query: string) => server.request('GET', `${base}${query}`, { token: bulk.token });

describe('paging', () => {
  it('defaults to page 1 of 20, newest first, without totals', async () => {
    const response = await list('');
    expect(response.status).toBe(200);
    expect(response.body.items.map((i: { id: string }) => i.id)).toEqual(newestFirst.slice(0, 20));
    expect(response.body.total_items).toBeUndefined();
    expect(response.body.total_pages).toBeUndefined();
  });

  it('page_size 100 gives 100 items; pages follow each other without gaps or repeats', async () => {
    const seen: string[] = [];
    for (let page = 1; page <= 10; page += 1) {
      const response = await list(`?page=${page}&page_size=100`);
      expect(response.body.items).toHaveLength(100);
      seen.push(...response.body.items.map((i: { id: string }) => i.id));
    }
    expect(seen).toEqual(newestFirst);
  });

  it('total_required adds total_items and total_pages', async () => {
    const response = await list('?page_size=100&total_required=true');
    expect(response.body.total_items).toBe(COUNT);
    expect(response.body.total_pages).toBe(10);
    const other = await list('?page_size=7&total_required=true');
    expect(other.body.total_pages).toBe(143);
  });

  it('navigation links: first, last, next, prev', async () => {
    const response = await list('?page=2&page_size=100');
    const rels = Object.fromEntries(response.body.links.map((l: { rel: string; href: string }) => [l.rel, new URL(l.href).search]));
    expect(rels).toEqual({
      self: '?page=2&page_size=100',
      first: '?page=1&page_size=100',
      last: '?page=10&page_size=100',
      next: '?page=3&page_size=100',
      prev: '?page=1&page_size=100',
    });
    const last = await list('?page=10&page_size=100');
    expect(last.body.links.map((l: { rel: string }) => l.rel)).not.toContain('next');
  });

  it('page 1000 (the largest) is served: with page_size 1 it holds the oldest invoice', async () => {
    const response = await list('?page=1000&page_size=1');
    expect(response.status).toBe(200);
    expect(response.body.items.map((i: { id: string }) => i.id)).toEqual([newestFirst[COUNT - 1]]);
  });

  it('a page past the end is empty, with first/last/prev links', async () => {
    const response = await list('?page=11&page_size=100&total_required=true');
    expect(response.status).toBe(200);
    expect(response.body.items).toEqual([]);
    expect(response.body.total_items).toBe(COUNT);
    expect(response.body.links.map((l: { rel: string }) => l.rel).sort()).toEqual(['first', 'last', 'prev', 'self']);
  });

  it('a merchant without invoices gets an empty first page and zero totals', async () => {
    const fresh = await server.createMerchant();
    const response = await server.request('GET', `${base}?total_required=true`, { token: fresh.token });
    expect(response.body).toMatchObject({ items: [], total_items: 0, total_pages: 0 });
  });

  it('fields=none returns only id, status, number and the currency the schema requires', async () => {
    const response = await list('?page_size=1&fields=none');
    expect(Object.keys(response.body.items[0]).sort()).toEqual(['detail', 'id', 'links', 'status']);
    expect(response.body.items[0].detail).toEqual({ invoice_number: `N-${COUNT - 1}`, currency_code: 'USD' });
  });
});

describe('out-of-range parameters (INVALID_REQUEST, location query)', () => {
  it.each([
    ['page=1001', '/page', 'INVALID_INTEGER_MAX_VALUE', '1001'],
    ['page=0', '/page', 'INVALID_INTEGER_MIN_VALUE', '0'],
    ['page_size=101', '/page_size', 'INVALID_INTEGER_MAX_VALUE', '101'],
    ['page_size=0', '/page_size', 'INVALID_INTEGER_MIN_VALUE', '0'],
    ['page=abc', '/page', 'INVALID_PARAMETER_SYNTAX', 'abc'],
    ['total_required=yes', '/total_required', 'INVALID_PARAMETER_VALUE', 'yes'],
    ['fields=some', '/fields', 'INVALID_PARAMETER_SYNTAX', 'some'],
  ])('%s', async (query, field, issue, value) => {
    const response = await list(`?${query}`);
    expect(response.status).toBe(400);
    expect(response.body.name).toBe('INVALID_REQUEST');
    expect(response.body.message).toBe('Request is not well-formed, syntactically incorrect, or violates schema.');
    expect(response.body.details).toEqual([expect.objectContaining({ field, issue, value, location: 'query' })]);
  });

  it('page_size 100 and page 1000 are inside the range', async () => {
    expect((await list('?page_size=100&page=1000')).status).toBe(200);
  });

  it('NOT_AUTHORIZED without a permission (simulated) and AUTHENTICATION_FAILURE without a token', async () => {
    const denied = await server.request('GET', base, {
      token: bulk.token,
      headers: { 'service-mock-response': '{"mock_application_codes":"PERMISSION_DENIED"}' },
    });
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ name: 'NOT_AUTHORIZED', details: [expect.objectContaining({ issue: 'PERMISSION_DENIED' })] });
    const internal = await server.request('GET', base, {
      token: bulk.token,
      headers: { 'service-mock-response': '{"mock_application_codes":"INTERNAL_SERVER_ERROR"}' },
    });
    expect(internal.status).toBe(500);
    expect(internal.body.name).toBe('INTERNAL_SERVER_ERROR');
    expect((await server.request('GET', base, { token: null })).status).toBe(401);
  });
});

describe('the list query uses the index', () => {
  // SQLite's query planner (EXPLAIN QUERY PLAN).
  it.skipIf(onPostgres)('EXPLAIN QUERY PLAN: the (account, create_time, id) index, no table scan, no sort', async () => {
    // The same statement as LIST_PAGE_SQL, for page 1000 of 100.
    const plan = await sql<{ detail: string }>`EXPLAIN QUERY PLAN SELECT * FROM invoices WHERE account_id = ${bulk.payer_id} ORDER BY create_time DESC, id DESC LIMIT ${100} OFFSET ${99_900}`.execute(
      server.server.db,
    );
    const details = plan.rows.map((row) => row.detail).join('\n');
    expect(details).toMatch(/SEARCH invoices USING INDEX invoices_account_created \(account_id=\?\)/);
    expect(details).not.toMatch(/TEMP B-TREE/);
    expect(details).not.toMatch(/SCAN invoices(?! USING)/);
    expect(LIST_PAGE_SQL).toContain('ORDER BY create_time DESC, id DESC');
  });
});
