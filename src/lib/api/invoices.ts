// The invoicing API: invoices, their actions, search, numbers, QR codes, and the server's outbox.

import { z } from 'zod';
import { call, pageQuery, type PageOptions } from './call.js';
import type { ApiClient } from './client.js';
import { linkSchema, moneySchema } from './types.js';

export type { PageOptions } from './call.js';

const billingSchema = z.looseObject({
  business_name: z.string().optional(),
  email_address: z.string().optional(),
  name: z.looseObject({ given_name: z.string().optional(), surname: z.string().optional(), full_name: z.string().optional() }).optional(),
});

const itemSchema = z.looseObject({
  id: z.string().optional(),
  name: z.string(),
  quantity: z.string(),
  unit_amount: moneySchema,
  unit_of_measure: z.string().optional(),
  tax: z.looseObject({ name: z.string().optional(), percent: z.string().optional(), amount: moneySchema.optional() }).optional(),
  discount: z.looseObject({ percent: z.string().optional(), amount: moneySchema.optional() }).optional(),
});

const transactionSchema = z.looseObject({
  payment_id: z.string().optional(),
  refund_id: z.string().optional(),
  type: z.string().optional(),
  method: z.string().optional(),
  payment_date: z.string().optional(),
  refund_date: z.string().optional(),
  note: z.string().optional(),
  amount: moneySchema.optional(),
});

export const invoiceSchema = z.looseObject({
  id: z.string(),
  status: z.string(),
  detail: z.looseObject({
    invoice_number: z.string().optional(),
    invoice_date: z.string().optional(),
    currency_code: z.string().optional(),
    note: z.string().optional(),
    memo: z.string().optional(),
    reference: z.string().optional(),
    payment_term: z.looseObject({ term_type: z.string().optional(), due_date: z.string().optional() }).optional(),
  }),
  invoicer: z.looseObject({ business_name: z.string().optional(), email_address: z.string().optional() }).optional(),
  primary_recipients: z.array(z.looseObject({ billing_info: billingSchema.optional() })).optional(),
  items: z.array(itemSchema).optional(),
  amount: z
    .looseObject({
      currency_code: z.string(),
      value: z.string(),
      breakdown: z.record(z.string(), z.unknown()).optional(),
    })
    .optional(),
  due_amount: moneySchema.optional(),
  payments: z.looseObject({ paid_amount: moneySchema.optional(), transactions: z.array(transactionSchema).optional() }).optional(),
  refunds: z.looseObject({ refund_amount: moneySchema.optional(), transactions: z.array(transactionSchema).optional() }).optional(),
  links: z.array(linkSchema).optional(),
});
export type Invoice = z.infer<typeof invoiceSchema>;

const invoicePageSchema = z.looseObject({
  total_pages: z.number().optional(),
  total_items: z.number().optional(),
  items: z.array(invoiceSchema),
  links: z.array(linkSchema).optional(),
});
export type InvoicePage = z.infer<typeof invoicePageSchema>;

export interface Mutation {
  requestId?: string;
}

const path = (id: string) => `/v2/invoicing/invoices/${encodeURIComponent(id)}`;

/** GET /v2/invoicing/invoices: one page, newest first. */
export async function listInvoices(client: ApiClient, options: PageOptions = {}): Promise<InvoicePage> {
  return call(client, invoicePageSchema, { method: 'GET', path: '/v2/invoicing/invoices', query: pageQuery(options) });
}

/** POST /v2/invoicing/search-invoices with `search_data`. */
export async function searchInvoices(client: ApiClient, search: Record<string, unknown>, options: PageOptions = {}): Promise<InvoicePage> {
  return call(client, invoicePageSchema, { method: 'POST', path: '/v2/invoicing/search-invoices', query: pageQuery(options), body: search });
}

export async function getInvoice(client: ApiClient, id: string): Promise<Invoice> {
  return call(client, invoiceSchema, { method: 'GET', path: path(id) });
}

export async function createInvoice(client: ApiClient, body: unknown, options: Mutation = {}): Promise<Invoice> {
  return call(client, invoiceSchema, { method: 'POST', path: '/v2/invoicing/invoices', body, prefer: 'return=representation', requestId: options.requestId });
}

export async function deleteInvoice(client: ApiClient, id: string, options: Mutation = {}): Promise<void> {
  await client.request({ method: 'DELETE', path: path(id), requestId: options.requestId });
}

export interface Notification {
  subject?: string;
  note?: string;
  send_to_recipient?: boolean;
  send_to_invoicer?: boolean;
  additional_recipients?: string[];
}

const sendResultSchema = z.union([linkSchema, z.looseObject({ links: z.array(linkSchema) })]);

/** Sends the invoice (200, with the payer's link) or schedules it for its date (202). */
export async function sendInvoice(client: ApiClient, id: string, notification: Notification, options: Mutation = {}): Promise<{ status: number; body: z.infer<typeof sendResultSchema> }> {
  const response = await client.request({ method: 'POST', path: `${path(id)}/send`, body: notification, requestId: options.requestId });
  return { status: response.status, body: sendResultSchema.parse(response.body) };
}

export async function remindInvoice(client: ApiClient, id: string, notification: Notification, options: Mutation = {}): Promise<void> {
  await client.request({ method: 'POST', path: `${path(id)}/remind`, body: notification, requestId: options.requestId });
}

export async function cancelInvoice(client: ApiClient, id: string, notification: Notification, options: Mutation = {}): Promise<void> {
  await client.request({ method: 'POST', path: `${path(id)}/cancel`, body: notification, requestId: options.requestId });
}

export interface PaymentDetail {
  method: string;
  amount?: { currency_code: string; value: string };
  payment_date?: string;
  note?: string;
}

export async function recordPayment(client: ApiClient, id: string, payment: PaymentDetail, options: Mutation = {}): Promise<{ payment_id: string }> {
  return call(client, z.looseObject({ payment_id: z.string() }), { method: 'POST', path: `${path(id)}/payments`, body: payment, requestId: options.requestId });
}

export interface RefundDetail {
  method: string;
  amount?: { currency_code: string; value: string };
  refund_date?: string;
}

/** POST /v2/invoicing/invoices/{id}/refunds: 200 { refund_id }. */
export async function recordRefund(client: ApiClient, id: string, refund: RefundDetail, options: Mutation = {}): Promise<{ refund_id: string }> {
  return call(client, z.looseObject({ refund_id: z.string() }), { method: 'POST', path: `${path(id)}/refunds`, body: refund, requestId: options.requestId });
}

/** The QR code PNG. Asked for as Base64 text (what the public API answers) and decoded here. */
export async function invoiceQrCode(client: ApiClient, id: string, options: { width?: number; height?: number; action?: string } = {}): Promise<Buffer> {
  const response = await client.request({ method: 'POST', path: `${path(id)}/generate-qr-code`, body: options, headers: { accept: 'text/plain' } });
  const text = typeof response.body === 'string' ? response.body : response.text;
  const png = Buffer.from(text.trim(), 'base64');
  if (png.subarray(1, 4).toString('latin1') !== 'PNG') throw new Error('the server did not answer with a PNG image');
  return png;
}
