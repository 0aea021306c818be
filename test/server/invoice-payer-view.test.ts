// The payer's view of an invoice: the link that send answers (and recipient_view_url) serves a page.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpRequest, startTestServer, type TestServer } from '../helpers/server.js';
import { createInvoice, invoiceBody } from './invoicing-helpers.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ memory: true });
});
afterAll(async () => server.close());

/** Opens a link as a payer would: no credentials. */
const open = (href: string) => httpRequest<string>(href, 'GET', { token: null });

describe('GET /invoice/p/{id}', () => {
  it('serves the sent invoice at the link send answers, without credentials', async () => {
    const invoice = await createInvoice(server, invoiceBody({}, { invoice_number: 'PV-0001' }));
    const sent = await server.request('POST', `/v2/invoicing/invoices/${invoice.id}/send`, { body: {} });
    expect(sent.status).toBe(200);
    const href = sent.body.href as string;
    expect(href).toBe(`${server.url}/invoice/p/${invoice.id}`);

    const page = await open(href);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.text).toContain('Invoice PV-0001');
    expect(page.text).toContain('Acme Yoga');
    expect(page.text).toContain('Yoga mat');
    expect(page.text).toContain('Total: <strong>28.82 USD</strong>');
    expect(page.text).toContain('Amount due: <strong>28.82 USD</strong>');

    // The invoice's own recipient_view_url is the same page.
    const got = await server.request('GET', `/v2/invoicing/invoices/${invoice.id}`);
    expect(got.body.detail.metadata.recipient_view_url).toBe(href);
  });

  it('follows the invoice: paid, then cancelled states read as such', async () => {
    const invoice = await createInvoice(server, invoiceBody({}, { invoice_number: 'PV-0002' }));
    await server.request('POST', `/v2/invoicing/invoices/${invoice.id}/send`, { body: {} });
    const paid = await server.request('POST', `/v2/invoicing/invoices/${invoice.id}/payments`, { body: { method: 'CASH' } });
    expect(paid.status).toBe(200);
    const page = await open(`${server.url}/invoice/p/${invoice.id}`);
    expect(page.text).toContain('This invoice is paid.');
    expect(page.text).toContain('paid 28.82 USD');

    const other = await createInvoice(server, invoiceBody({}, { invoice_number: 'PV-0003' }));
    await server.request('POST', `/v2/invoicing/invoices/${other.id}/send`, { body: {} });
    expect((await server.request('POST', `/v2/invoicing/invoices/${other.id}/cancel`, { body: {} })).status).toBe(204);
    expect((await open(`${server.url}/invoice/p/${other.id}`)).text).toContain('This invoice was cancelled');
  });

  it('answers 404 for a draft, a scheduled invoice and an unknown id, and escapes what the merchant wrote', async () => {
    const draft = await createInvoice(server, invoiceBody({}, { invoice_number: 'PV-0004' }));
    const draftPage = await open(`${server.url}/invoice/p/${draft.id}`);
    expect(draftPage.status).toBe(404);
    expect(draftPage.text).toContain('Invoice not found');
    expect(draftPage.text).not.toContain('PV-0004');

    const future = await createInvoice(server, invoiceBody({}, { invoice_number: 'PV-0005', invoice_date: '2099-01-01' }));
    const scheduled = await server.request('POST', `/v2/invoicing/invoices/${future.id}/send`, { body: {} });
    expect(scheduled.status).toBe(202);
    expect((await open(`${server.url}/invoice/p/${future.id}`)).status).toBe(404);

    expect((await open(`${server.url}/invoice/p/INV2-NOSUCHINVOICE0000000`)).status).toBe(404);

    const hostile = await createInvoice(server, invoiceBody({ invoicer: { business_name: '<script>alert(1)</script>' } }, { invoice_number: 'PV-<b>6</b>' }));
    await server.request('POST', `/v2/invoicing/invoices/${hostile.id}/send`, { body: {} });
    const hostilePage = await open(`${server.url}/invoice/p/${hostile.id}`);
    expect(hostilePage.status).toBe(200);
    expect(hostilePage.text).not.toContain('<script>');
    expect(hostilePage.text).toContain('&#60;script&#62;');
    expect(hostilePage.text).toContain('PV-&#60;b&#62;6&#60;/b&#62;');
  });

  it("shows another merchant's sent invoice to whoever holds its link, and nothing through the API", async () => {
    const other = await server.createMerchant('payer-view-other@example.com');
    const invoice = await createInvoice(server, invoiceBody({}, { invoice_number: 'PV-0007' }), other.token);
    await server.request('POST', `/v2/invoicing/invoices/${invoice.id}/send`, { body: {}, token: other.token });
    expect((await open(`${server.url}/invoice/p/${invoice.id}`)).status).toBe(200);
    expect((await server.request('GET', `/v2/invoicing/invoices/${invoice.id}`)).status).toBe(403);
  });
});
