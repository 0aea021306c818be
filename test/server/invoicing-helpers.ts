// Shared builders for the invoicing server tests.

import type { TestServer } from '../helpers/server.js';

export function invoiceBody(overrides: Record<string, unknown> = {}, detail: Record<string, unknown> = {}) {
  return {
    detail: { currency_code: 'USD', note: 'Thanks for your business', payment_term: { term_type: 'NET_30' }, ...detail },
    invoicer: { business_name: 'Acme Yoga', email_address: 'billing@acme.example' },
    primary_recipients: [
      { billing_info: { name: { given_name: 'Ada', surname: 'Lovelace' }, email_address: 'ada@example.com', business_name: 'Analytical Ltd' } },
    ],
    items: [
      {
        name: 'Yoga mat',
        quantity: '2',
        unit_amount: { currency_code: 'USD', value: '10.00' },
        discount: { percent: '10' },
        tax: { name: 'Sales tax', percent: '8.25' },
      },
      { name: 'Strap', quantity: '1.5', unit_amount: { currency_code: 'USD', value: '3.33' }, tax: { name: 'Sales tax', percent: '8.25' } },
    ],
    amount: {
      breakdown: {
        discount: { invoice_discount: { percent: '10' } },
        shipping: { amount: { currency_code: 'USD', value: '5.00' }, tax: { name: 'Sales tax', percent: '8.25' } },
        custom: { label: 'Packing', amount: { currency_code: 'USD', value: '1.00' } },
      },
    },
    ...overrides,
  };
}

/** A one-line invoice of `value` USD, no tax. */
export function simpleInvoice(value: string, detail: Record<string, unknown> = {}, currency = 'USD') {
  return {
    detail: { currency_code: currency, ...detail },
    primary_recipients: [{ billing_info: { email_address: 'payer@example.com' } }],
    items: [{ name: 'Service', quantity: '1', unit_amount: { currency_code: currency, value } }],
  };
}

export async function createInvoice(server: TestServer, body: unknown, token?: string): Promise<{ id: string; status: string; detail: { invoice_number: string } }> {
  const response = await server.request('POST', '/v2/invoicing/invoices', { body, ...(token ? { token } : {}) });
  if (response.status !== 201) throw new Error(`create failed: ${response.status} ${response.text}`);
  return response.body;
}

export async function sentInvoice(server: TestServer, value: string, token?: string): Promise<string> {
  const invoice = await createInvoice(server, simpleInvoice(value), token);
  const sent = await server.request('POST', `/v2/invoicing/invoices/${invoice.id}/send`, { body: {}, ...(token ? { token } : {}) });
  if (sent.status !== 200) throw new Error(`send failed: ${sent.status} ${sent.text}`);
  return invoice.id;
}
