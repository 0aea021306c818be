// Invoices over HTTP: create with computed amounts, read, replace, delete, numbers, tenancy.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type Merchant, type TestServer } from '../helpers/server.js';
import { createInvoice, invoiceBody, sentInvoice, simpleInvoice } from './invoicing-helpers.js';

let server: TestServer;
let other: Merchant;
const base = '/v2/invoicing/invoices';

beforeAll(async () => {
  server = await startTestServer({ memory: true });
  other = await server.createMerchant();
});
afterAll(async () => {
  await server.close();
});

describe('create', () => {
  it('keeps an item tax\'s tax_note (spec 2.6) on create and read', async () => {
    const body = simpleInvoice('10.00');
    body.items[0] = { ...body.items[0]!, tax: { name: 'VAT', percent: '20', tax_note: 'Zero-rated export' } } as (typeof body.items)[number];
    const created = await server.request('POST', base, { body });
    expect(created.status, created.text).toBe(201);
    expect(created.body.items[0].tax).toMatchObject({ name: 'VAT', percent: '20', tax_note: 'Zero-rated export', amount: { value: '2.00' } });
    const read = await server.request('GET', `${base}/${created.body.id}`);
    expect(read.body.items[0].tax.tax_note).toBe('Zero-rated export');
  });

  it('creates a DRAFT (201) with the amount and its breakdown computed exactly', async () => {
    const response = await server.request('POST', base, { body: invoiceBody() });
    expect(response.status).toBe(201);
    const invoice = response.body;
    expect(invoice.id).toMatch(/^INV2-[A-Z0-9]{19}$/);
    expect(invoice.status).toBe('DRAFT');
    expect(invoice.detail.invoice_number).toMatch(/^\d{4}$/);
    // Items 25.00, item discount 2.00, invoice discount 10 % of 23.00 = 2.30,
    // tax 1.34 + 0.37 + shipping 0.41 = 2.12, shipping 5.00, custom 1.00: total 28.82.
    expect(invoice.amount).toEqual({
      currency_code: 'USD',
      value: '28.82',
      breakdown: {
        item_total: { currency_code: 'USD', value: '25.00' },
        discount: {
          item_discount: { currency_code: 'USD', value: '2.00' },
          invoice_discount: { percent: '10', amount: { currency_code: 'USD', value: '2.30' } },
        },
        tax_total: { currency_code: 'USD', value: '2.12' },
        shipping: {
          amount: { currency_code: 'USD', value: '5.00' },
          tax: { name: 'Sales tax', percent: '8.25', amount: { currency_code: 'USD', value: '0.41' } },
        },
        custom: { label: 'Packing', amount: { currency_code: 'USD', value: '1.00' } },
      },
    });
    expect(invoice.due_amount).toEqual({ currency_code: 'USD', value: '28.82' });
    expect(invoice.items[0].tax.amount).toEqual({ currency_code: 'USD', value: '1.34' });
    expect(invoice.items[0].discount.amount).toEqual({ currency_code: 'USD', value: '2.00' });
    expect(invoice.items[0].id).toMatch(/^ITEM-/);
    expect(invoice.configuration).toMatchObject({ tax_calculated_after_discount: true, tax_inclusive: false });
    // NET_30 from today on the account's clock.
    const today = invoice.detail.invoice_date as string;
    const due = new Date(Date.parse(`${today}T00:00:00Z`) + 30 * 86_400_000).toISOString().slice(0, 10);
    expect(invoice.detail.payment_term).toEqual({ term_type: 'NET_30', due_date: due });
    expect(invoice.links.map((l: { rel: string }) => l.rel)).toEqual(expect.arrayContaining(['self', 'send', 'delete']));
  });

  it('tax-inclusive and zero-decimal invoices', async () => {
    const jpy = await createInvoice(server, {
      detail: { currency_code: 'JPY' },
      items: [
        { name: 'Tea', quantity: '3', unit_amount: { currency_code: 'JPY', value: '333' }, tax: { name: 'VAT', percent: '10' } },
        { name: 'Cup', quantity: '0.5', unit_amount: { currency_code: 'JPY', value: '101' } },
      ],
    });
    // ¥999 + ¥51 (50.5 rounded up) + tax ¥100 (99.9) = ¥1,150
    expect((jpy as unknown as { amount: { value: string } }).amount.value).toBe('1150');
    const inclusive = await createInvoice(server, {
      detail: { currency_code: 'EUR' },
      configuration: { tax_inclusive: true },
      items: [{ name: 'Book', quantity: '1', unit_amount: { currency_code: 'EUR', value: '10.00' }, tax: { name: 'VAT', percent: '20' } }],
    });
    const body = inclusive as unknown as { amount: { value: string; breakdown: { tax_total: { value: string } } } };
    expect(body.amount.value).toBe('10.00');
    expect(body.amount.breakdown.tax_total.value).toBe('1.67');
  });

  it('totals up to 15 integer digits: 999999999999999.99 USD is accepted, twice that is MAX_VALUE_EXCEEDED', async () => {
    const largest = await server.request('POST', base, { body: simpleInvoice('999999999999999.99') });
    expect(largest.status).toBe(201);
    expect(largest.body.amount.value).toBe('999999999999999.99');
    const body = simpleInvoice('999999999999999.99');
    body.items[0]!.quantity = '2';
    const over = await server.request('POST', base, { body });
    expect(over.status).toBe(400);
    expect(over.body.details[0]).toMatchObject({ issue: 'MAX_VALUE_EXCEEDED', field: '/amount' });
  });

  it('writes INVOICING.INVOICE.CREATED in the same transaction', async () => {
    const invoice = await createInvoice(server, simpleInvoice('12.00'));
    const events = await server.server.db.selectFrom('events').selectAll().where('resource_id', '=', invoice.id).execute();
    expect(events.map((event) => event.event_type)).toEqual(['INVOICING.INVOICE.CREATED']);
    const envelope = JSON.parse(events[0]!.body);
    expect(envelope.resource.invoice.id).toBe(invoice.id);
  });

  it.each([
    [{ detail: {} }, '/detail/currency_code', 'MISSING_REQUIRED_PARAMETER'],
    [{}, '/detail', 'MISSING_REQUIRED_PARAMETER'],
    [simpleInvoice('1.001'), '/items/0/unit_amount/value', 'DECIMAL_PRECISION'],
    [simpleInvoice('100', {}, 'JPY'), undefined, undefined],
    [{ ...simpleInvoice('1.00'), items: [{ name: 'x', quantity: '0.000001', unit_amount: { currency_code: 'USD', value: '1.00' } }] }, '/items/0/quantity', 'DECIMAL_PRECISION'],
    [{ ...simpleInvoice('1.00'), items: [{ name: 'x', quantity: '1', unit_amount: { currency_code: 'EUR', value: '1.00' } }] }, '/items/0/unit_amount/currency_code', 'CURRENCY_MISMATCH'],
    [simpleInvoice('1.00', { invoice_date: '2025-02-30' }), '/detail/invoice_date', 'INVALID_PARAMETER_SYNTAX'],
    [simpleInvoice('1.00', { invoice_number: 'x'.repeat(26) }), '/detail/invoice_number', 'INVALID_STRING_MAX_LENGTH'],
    [simpleInvoice('1.00', { currency_code: 'XYZ' }), '/detail/currency_code', 'CURRENCY_NOT_SUPPORTED'],
  ])('validates the body (%#)', async (body, field, issue) => {
    const response = await server.request('POST', base, { body });
    if (issue === undefined) {
      expect(response.status).toBe(201);
      return;
    }
    expect(response.status).toBe(400);
    expect(response.body.name).toBe('INVALID_REQUEST');
    expect(response.body.details[0]).toMatchObject({ field, issue, location: 'body' });
  });
});

describe('invoice numbers', () => {
  it('generate-next-invoice-number reserves the next number; create without one takes the following', async () => {
    const fresh = await server.createMerchant();
    const next = await server.request('POST', '/v2/invoicing/generate-next-invoice-number', { token: fresh.token });
    expect(next.status).toBe(200);
    expect(next.body).toEqual({ invoice_number: '0001' });
    const invoice = await createInvoice(server, simpleInvoice('1.00'), fresh.token);
    expect(invoice.detail.invoice_number).toBe('0002');
    const mine = await createInvoice(server, simpleInvoice('1.00', { invoice_number: '0001' }), fresh.token);
    expect(mine.detail.invoice_number).toBe('0001');
  });

  it('a duplicate number is 422 DUPLICATE_INVOICE_NUMBER; another merchant may use it', async () => {
    await createInvoice(server, simpleInvoice('1.00', { invoice_number: 'DUP-1' }));
    const again = await server.request('POST', base, { body: simpleInvoice('1.00', { invoice_number: 'DUP-1' }) });
    expect(again.status).toBe(422);
    expect(again.body.name).toBe('UNPROCESSABLE_ENTITY');
    expect(again.body.details[0]).toMatchObject({ issue: 'DUPLICATE_INVOICE_NUMBER', field: '/detail/invoice_number' });
    await createInvoice(server, simpleInvoice('1.00', { invoice_number: 'DUP-1' }), other.token);
  });

  it('deleting a draft frees its number', async () => {
    const draft = await createInvoice(server, simpleInvoice('1.00', { invoice_number: 'REUSE-1' }));
    expect((await server.request('DELETE', `${base}/${draft.id}`)).status).toBe(204);
    await createInvoice(server, simpleInvoice('1.00', { invoice_number: 'REUSE-1' }));
  });
});

describe('get, replace, delete', () => {
  it('GET returns what create returned', async () => {
    const created = await server.request('POST', base, { body: invoiceBody() });
    const got = await server.request('GET', `${base}/${created.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(created.body);
  });

  it('PUT replaces the whole invoice and keeps status and number; INVOICING.INVOICE.UPDATED', async () => {
    const created = await createInvoice(server, invoiceBody());
    const response = await server.request('PUT', `${base}/${created.id}`, { body: simpleInvoice('7.50') });
    expect(response.status).toBe(200);
    expect(response.body.status).toBe('DRAFT');
    expect(response.body.detail.invoice_number).toBe(created.detail.invoice_number);
    expect(response.body.amount.value).toBe('7.50');
    expect(response.body.invoicer).toBeUndefined();
    expect(response.body.detail.note).toBeUndefined();
    const events = await server.server.db.selectFrom('events').select('event_type').where('resource_id', '=', created.id).orderBy('seq').execute();
    expect(events.map((event) => event.event_type)).toEqual(['INVOICING.INVOICE.CREATED', 'INVOICING.INVOICE.UPDATED']);
  });

  it('PUT of a sent invoice notifies the recipient unless send_to_recipient=false', async () => {
    const id = await sentInvoice(server, '10.00');
    await server.request('PUT', `${base}/${id}?send_to_recipient=false&send_to_invoicer=false`, { body: simpleInvoice('11.00') });
    let outbox = await server.request('GET', `/_payctl/outbox?invoice_id=${id}`);
    expect(outbox.body.messages.map((m: { kind: string }) => m.kind)).toEqual(['INVOICE']);
    await server.request('PUT', `${base}/${id}`, { body: simpleInvoice('12.00') });
    outbox = await server.request('GET', `/_payctl/outbox?invoice_id=${id}`);
    expect(outbox.body.messages.map((m: { kind: string }) => m.kind)).toEqual(['UPDATE', 'INVOICE']);
  });

  it('DELETE removes a DRAFT (204) and refuses a sent invoice with 422 CANNOT_DELETE_INVOICE', async () => {
    const draft = await createInvoice(server, simpleInvoice('1.00'));
    const removed = await server.request('DELETE', `${base}/${draft.id}`);
    expect(removed.status).toBe(204);
    expect((await server.request('GET', `${base}/${draft.id}`)).status).toBe(404);
    const id = await sentInvoice(server, '1.00');
    const refused = await server.request('DELETE', `${base}/${id}`);
    expect(refused.status).toBe(422);
    expect(refused.body.details[0].issue).toBe('CANNOT_DELETE_INVOICE');
  });

  it('a retried create with the same Service-Request-Id makes one invoice', async () => {
    const headers = { 'service-request-id': 'create-once-1' };
    const first = await server.request('POST', base, { body: simpleInvoice('3.00'), headers });
    const second = await server.request('POST', base, { body: simpleInvoice('3.00'), headers });
    expect(second.status).toBe(201);
    expect(second.body.id).toBe(first.body.id);
  });
});

describe('tenancy', () => {
  it('another merchant\'s invoice: 403 NOT_AUTHORIZED / PERMISSION_DENIED on every operation, unknown: 404', async () => {
    const theirs = await createInvoice(server, simpleInvoice('5.00'), other.token);
    const attempts: Array<[string, string, unknown]> = [
      ['GET', `${base}/${theirs.id}`, undefined],
      ['PUT', `${base}/${theirs.id}`, simpleInvoice('1.00')],
      ['DELETE', `${base}/${theirs.id}`, undefined],
      ['POST', `${base}/${theirs.id}/send`, {}],
      ['POST', `${base}/${theirs.id}/remind`, {}],
      ['POST', `${base}/${theirs.id}/cancel`, {}],
      ['POST', `${base}/${theirs.id}/payments`, { method: 'CASH' }],
      ['POST', `${base}/${theirs.id}/refunds`, { method: 'CASH' }],
    ];
    for (const [method, path, body] of attempts) {
      const response = await server.request(method, path, body === undefined ? {} : { body });
      expect([method, path, response.status]).toEqual([method, path, 403]);
      expect(response.body.name).toBe('NOT_AUTHORIZED');
      expect(response.body.details[0].issue).toBe('PERMISSION_DENIED');
      expect(response.text).not.toContain('5.00');
    }
    const still = await server.request('GET', `${base}/${theirs.id}`, { token: other.token });
    expect(still.body.status).toBe('DRAFT');
    const unknown = await server.request('GET', `${base}/INV2-NOPE`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.name).toBe('RESOURCE_NOT_FOUND');
  });

  it('lists show only the caller\'s invoices', async () => {
    const fresh = await server.createMerchant();
    await createInvoice(server, simpleInvoice('2.00'), fresh.token);
    const list = await server.request('GET', `${base}?total_required=true`, { token: fresh.token });
    expect(list.body.total_items).toBe(1);
  });
});

describe('reset', () => {
  it('POST /_payctl/reset deletes the account\'s invoices, outbox and own templates, and restores the system templates', async () => {
    const merchant = await server.createMerchant();
    const as = { token: merchant.token };
    const invoice = await createInvoice(server, simpleInvoice('4.00'), merchant.token);
    await server.request('POST', `${base}/${invoice.id}/send`, { ...as, body: {} });
    await server.request('POST', '/v2/invoicing/templates', { ...as, body: { name: 'Mine' } });
    expect((await server.request('POST', '/_payctl/reset', { ...as, body: {} })).status).toBe(200);
    expect((await server.request('GET', `${base}?total_required=true`, as)).body.total_items).toBe(0);
    expect((await server.request('GET', '/_payctl/outbox', as)).body.messages).toEqual([]);
    const templates = (await server.request('GET', '/v2/invoicing/templates', as)).body.templates;
    expect(templates.map((t: { name: string }) => t.name)).toEqual(['Quantity', 'Hours', 'Amount']);
    const next = await server.request('POST', '/v2/invoicing/generate-next-invoice-number', { ...as, body: {} });
    expect(next.body.invoice_number).toBe('0001');
  });
});
