// Invoice list pages are written from each invoice's stored view template (invoicing/view-template.ts);
// the single-invoice GET renders the resource object. Both must give the same text, byte for byte,
// for invoices of every shape and state, and rows without a usable template fall back to the long way.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoiceResource, NO_TRANSACTIONS, viewOf } from '../../src/server/invoicing/resource.js';
import type { InvoiceRow } from '../../src/server/invoicing/store.js';
import { appendInvoiceJson, viewTemplate } from '../../src/server/invoicing/view-template.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createInvoice, invoiceBody, sentInvoice, simpleInvoice } from './invoicing-helpers.js';

let server: TestServer;
const base = '/v2/invoicing/invoices';
const ids: Record<string, string> = {};

const post = async (path: string, body: unknown = {}) => {
  const response = await server.request('POST', `${base}${path}`, { body });
  if (response.status >= 300) throw new Error(`${path}: ${response.status} ${response.text}`);
};

/** Each listed invoice's text, by id (parsed and written again: key order and strings are kept). */
async function listedTexts(): Promise<Map<string, string>> {
  const response = await server.request<{ items: Array<{ id: string }> }>('GET', `${base}?page_size=100&total_required=true`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
  return new Map(response.body.items.map((item) => [item.id, JSON.stringify(item)]));
}

async function gotText(id: string): Promise<string> {
  const response = await server.request('GET', `${base}/${id}`);
  expect(response.status).toBe(200);
  return response.text;
}

async function expectListEqualsGet(): Promise<Map<string, string>> {
  const listed = await listedTexts();
  for (const id of Object.values(ids)) {
    expect(listed.get(id), id).toBe(await gotText(id));
  }
  return listed;
}

beforeAll(async () => {
  server = await startTestServer();
  ids.full = (await createInvoice(server, invoiceBody())).id;
  ids.ownNumberFirst = (await createInvoice(server, {
    ...simpleInvoice('12.34'),
    // The body's own number and date: holes in the middle of the detail's members, not after them.
    detail: { invoice_number: 'OWN-1', invoice_date: '2026-01-02', currency_code: 'USD', memo: 'own number' },
  })).id;
  ids.escaped = (await createInvoice(server, invoiceBody({
    items: [{ name: 'Café "quoted" \\ back\nslash \u2028 😀', quantity: '3', unit_amount: { currency_code: 'USD', value: '0.99' } }],
    amount: undefined,
  }, { note: 'Tab\there, nul-free, <script>' }))).id;
  ids.yen = (await createInvoice(server, simpleInvoice('1500', {}, 'JPY'))).id;
  ids.inclusive = (await createInvoice(server, invoiceBody({
    configuration: { tax_inclusive: true, allow_tip: true, partial_payment: { allow_partial_payment: true } },
    additional_recipients: ['cc@example.com'],
  }))).id;
  ids.sent = await sentInvoice(server, '20.00');
  ids.partiallyPaid = await sentInvoice(server, '30.00');
  await post(`/${ids.partiallyPaid}/payments`, { method: 'CASH', amount: { currency_code: 'USD', value: '10.00' } });
  ids.refunded = await sentInvoice(server, '40.00');
  await post(`/${ids.refunded}/payments`, { method: 'CHECK', amount: { currency_code: 'USD', value: '40.00' } });
  await post(`/${ids.refunded}/refunds`, { method: 'CASH', amount: { currency_code: 'USD', value: '15.00' } });
  ids.cancelled = await sentInvoice(server, '50.00');
  await post(`/${ids.cancelled}/cancel`);
  ids.reminded = await sentInvoice(server, '60.00');
  await post(`/${ids.reminded}/remind`);
});
afterAll(async () => {
  await server.close();
});

describe('invoice list pages from view templates', () => {
  it('list items are the GET texts, byte for byte, for every shape and state', async () => {
    const listed = await expectListEqualsGet();
    expect(listed.size).toBe(Object.keys(ids).length);
    // The states above all took effect (so their links, payments and refunds were compared).
    const statuses = Object.fromEntries(Object.entries(ids).map(([name, id]) => [name, JSON.parse(listed.get(id) as string).status]));
    expect(statuses).toMatchObject({ sent: 'SENT', partiallyPaid: 'PARTIALLY_PAID', refunded: 'PARTIALLY_REFUNDED', cancelled: 'CANCELLED', full: 'DRAFT' });
    expect(JSON.parse(listed.get(ids.refunded as string) as string).refunds.refund_amount.value).toBe('15.00');
    expect(JSON.parse(listed.get(ids.ownNumberFirst as string) as string).detail).toMatchObject({ invoice_number: 'OWN-1', invoice_date: '2026-01-02' });
  });

  it('every invoice written through the API has a template', async () => {
    const rows = await server.server.db.selectFrom('invoices').select(['id', 'view_template']).execute();
    expect(rows.length).toBe(Object.keys(ids).length);
    for (const row of rows) expect(row.view_template, row.id).toMatch(/^1\n/);
  });

  it('a replaced invoice lists its new content', async () => {
    const before = (await listedTexts()).get(ids.full as string);
    const replaced = await server.request('PUT', `${base}/${ids.full}`, {
      body: { ...invoiceBody(), items: [{ name: 'Block', quantity: '4', unit_amount: { currency_code: 'USD', value: '7.25' } }] },
    });
    expect(replaced.status).toBe(200);
    const after = await expectListEqualsGet();
    expect(after.get(ids.full as string)).not.toBe(before);
    expect(JSON.parse(after.get(ids.full as string) as string).items).toHaveLength(1);
  });

  it('rows without a template, or with one of another version, are rendered the long way, the same', async () => {
    const before = await listedTexts();
    await server.server.db.updateTable('invoices').set({ view_template: null }).where('id', '=', ids.full as string).execute();
    await server.server.db
      .updateTable('invoices')
      .set({ view_template: '0\n"bogus":true\n#number\n#date\n#metadata\n"amount":{}' })
      .where('id', '=', ids.partiallyPaid as string)
      .execute();
    expect(await listedTexts()).toEqual(before);
    await expectListEqualsGet();
  });

  it('search pages are written the same way', async () => {
    const response = await server.request<{ items: Array<{ id: string }> }>('POST', '/v2/invoicing/search-invoices?page_size=100', { body: { status: ['SENT'] } });
    expect(response.status).toBe(200);
    expect(response.body.items.map((item) => item.id).sort()).toEqual([ids.sent, ids.reminded].sort());
    for (const item of response.body.items) expect(JSON.stringify(item)).toBe(await gotText(item.id));
  });

  it('bodies of any detail order: number, date and metadata from the row go where the resource puts them', () => {
    const row = (detail: Record<string, unknown>): InvoiceRow => {
      const body = JSON.stringify({ input: { ...simpleInvoice('5.00'), detail }, item_ids: ['ITEM-1'] });
      const written = {
        id: 'INV2-UNIT-0000-0001', account_id: 'A', invoice_number: 'N-7', status: 'DRAFT', currency: 'USD',
        total_minor: 500n, paid_minor: 0n, refunded_minor: 0n, invoice_date: '2026-03-04', due_date: null,
        recipient_email: null, recipient_given_name: null, recipient_surname: null, recipient_business_name: null,
        reference: null, memo: null, body, transactions: NO_TRANSACTIONS, create_time: '2026-03-04T05:06:07.890Z',
        update_time: '2026-03-04T05:06:07.890Z', first_sent_time: null, last_sent_time: null, cancel_time: null,
      };
      return { ...written, view_template: viewTemplate(body, 'USD') };
    };
    for (const detail of [
      { currency_code: 'USD' },
      { invoice_date: '2020-01-01', currency_code: 'USD', note: 'n' },
      { note: 'n', invoice_number: 'OLD', currency_code: 'USD' },
      { currency_code: 'USD', payment_term: { term_type: 'NET_10' }, invoice_number: 'OLD', invoice_date: '2020-01-01' },
    ]) {
      const invoice = row(detail);
      const out: string[] = [];
      appendInvoiceJson(out, invoice, 'http://h"ost');
      expect(out.join('')).toBe(JSON.stringify(invoiceResource(viewOf(invoice), 'http://h"ost')));
    }
  });
});
