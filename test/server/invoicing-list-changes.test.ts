// The invoice list's count and pages over HTTP after the changes that add or remove invoices
// (create, delete, account reset): the in-memory page index must follow every one of them.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({ memory: true });
});
afterAll(() => t.close());

async function createInvoice(): Promise<string> {
  const created = await t.request('POST', '/v2/invoicing/invoices', {
    body: {
      detail: { currency_code: 'USD' },
      primary_recipients: [{ billing_info: { email_address: 'buyer@example.com' } }],
      items: [{ name: 'Widget', quantity: '1', unit_amount: { currency_code: 'USD', value: '5.00' } }],
    },
  });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

async function listed(): Promise<{ total: number; ids: string[] }> {
  const page = await t.request('GET', '/v2/invoicing/invoices?total_required=true&page_size=100');
  expect(page.status).toBe(200);
  return { total: page.body.total_items as number, ids: (page.body.items as Array<{ id: string }>).map((item) => item.id) };
}

describe('invoice list after changes', () => {
  it('counts and lists what was created, deleted and reset, each right after the change', async () => {
    expect((await listed()).total).toBe(0);
    const ids = [await createInvoice(), await createInvoice(), await createInvoice()];
    const afterCreate = await listed();
    expect(afterCreate.total).toBe(3);
    expect([...afterCreate.ids].sort()).toEqual([...ids].sort());

    expect((await t.request('DELETE', `/v2/invoicing/invoices/${ids[1]}`)).status).toBe(204);
    const afterDelete = await listed();
    expect(afterDelete.total).toBe(2);
    expect(afterDelete.ids).not.toContain(ids[1]);

    expect((await t.request('POST', '/_payctl/reset')).status).toBeLessThan(300);
    expect(await listed()).toEqual({ total: 0, ids: [] });
  });
});
