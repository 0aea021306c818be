// The stored form of an invoice and the resource the API returns for it.

import { z } from 'zod';
import { money, type Money } from '../../lib/money.js';
import { link, type Link } from '../http/links.js';
import type { InvoiceAmounts } from './amounts.js';
import { priceContent, renderAmount, renderItems } from './pricing.js';
import { invoiceSchema, notificationSchema, type InvoiceInput, type NotificationInput } from './schema.js';
import type { InvoiceStatus } from './states.js';
import type { InvoiceWrite } from './store.js';
import type {
  InvoiceAmount,
  InvoiceConfiguration,
  InvoiceDetail,
  InvoiceItem,
  InvoicePaymentDetail,
  InvoiceRefundDetail,
  InvoiceSummary,
} from './types.js';

const storedInvoiceSchema = z.object({
  input: invoiceSchema,
  item_ids: z.array(z.string()),
  /** The notification a scheduled invoice is sent with when its date comes. */
  notification: notificationSchema.optional(),
});
export type StoredInvoice = z.infer<typeof storedInvoiceSchema>;

const paymentSchema = z.object({
  payment_id: z.string(),
  type: z.string(),
  method: z.string(),
  payment_date: z.string(),
  payment_date_time: z.string(),
  note: z.string().optional(),
  amount_minor: z.string(),
  /** The part of amount_minor the payer added as a tip (allow_tip); shown in the invoice's gratuity. */
  gratuity_minor: z.string().optional(),
  shipping_info: z.record(z.string(), z.unknown()).optional(),
});
const refundSchema = z.object({
  refund_id: z.string(),
  type: z.string(),
  method: z.string(),
  refund_date: z.string(),
  amount_minor: z.string(),
});
const transactionsSchema = z.object({ payments: z.array(paymentSchema), refunds: z.array(refundSchema) });
export type Transactions = z.infer<typeof transactionsSchema>;

/**
 * The stored form is written only from an input this schema already accepted (never from a raw
 * request body), so reads trust it instead of validating it again: on a page of 100 invoices the
 * second validation was ~15% of the server's time. The audit checks every stored body
 * (`storedInvoiceProblem`).
 */
export function parseStoredInvoice(row: InvoiceWrite): StoredInvoice {
  return JSON.parse(row.body) as StoredInvoice;
}

/** What is wrong with a stored invoice body (undefined when nothing): for the audit. */
export function storedInvoiceProblem(body: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return 'not JSON';
  }
  const result = storedInvoiceSchema.safeParse(parsed);
  if (result.success) return undefined;
  const issue = result.error.issues[0];
  return issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'invalid';
}

/** The transactions column of an invoice without payments or refunds, as written. */
export const NO_TRANSACTIONS = JSON.stringify({ payments: [], refunds: [] });

/** The row's transactions; the common empty column is known without parsing and validating it. */
export function transactionsOf(row: InvoiceWrite): Transactions {
  return row.transactions === NO_TRANSACTIONS ? { payments: [], refunds: [] } : parseTransactions(row);
}

export function parseTransactions(row: InvoiceWrite): Transactions {
  return transactionsSchema.parse(JSON.parse(row.transactions));
}

export const statusOf = (row: InvoiceWrite): InvoiceStatus => row.status as InvoiceStatus;

export function invoicePath(id: string): string {
  return `/v2/invoicing/invoices/${id}`;
}

/** Where a payer would view and pay the invoice (what the QR code and e-mails point at). */
export function payerViewUrl(baseUrl: string, id: string): string {
  return `${baseUrl}/invoice/p/${id}`;
}

export function invoiceLinks(row: InvoiceWrite, baseUrl: string): Link[] {
  const path = invoicePath(row.id);
  const links: Link[] = [link(baseUrl, path, 'self', 'GET'), link(baseUrl, path, 'replace', 'PUT')];
  const status = statusOf(row);
  if (status === 'DRAFT' || status === 'SCHEDULED') links.push(link(baseUrl, path, 'delete', 'DELETE'));
  if (status === 'DRAFT') links.push(link(baseUrl, `${path}/send`, 'send', 'POST'));
  if (['SENT', 'UNPAID', 'PARTIALLY_PAID'].includes(status)) {
    links.push(link(baseUrl, `${path}/remind`, 'remind', 'POST'));
    links.push(link(baseUrl, `${path}/payments`, 'record-payment', 'POST'));
  }
  if (status === 'SENT' || status === 'UNPAID') links.push(link(baseUrl, `${path}/cancel`, 'cancel', 'POST'));
  if (row.paid_minor > row.refunded_minor) links.push(link(baseUrl, `${path}/refunds`, 'record-refund', 'POST'));
  return links;
}

export interface InvoiceView {
  row: InvoiceWrite;
  stored: StoredInvoice;
  transactions: Transactions;
  amounts: InvoiceAmounts;
}

export function viewOf(row: InvoiceWrite): InvoiceView {
  const stored = parseStoredInvoice(row);
  return { row, stored, transactions: transactionsOf(row), amounts: priceContent(stored.input) };
}

/** The due amount: the total less what was paid, never below zero. */
export function dueMinor(row: InvoiceWrite): bigint {
  const due = row.total_minor - row.paid_minor;
  return due > 0n ? due : 0n;
}

/** The invoice's detail.metadata as the API shows it. */
export interface InvoiceMetadata {
  create_time: string;
  last_update_time: string;
  created_by_flow: 'REGULAR_SINGLE';
  recipient_view_url: string;
  invoicer_view_url: string;
  first_sent_time?: string;
  last_sent_time?: string;
  cancel_time?: string;
}

export function metadataOf(row: InvoiceWrite, baseUrl: string): InvoiceMetadata {
  const metadata: InvoiceMetadata = {
    create_time: row.create_time.replace(/\.\d{3}Z$/, 'Z'),
    last_update_time: row.update_time.replace(/\.\d{3}Z$/, 'Z'),
    created_by_flow: 'REGULAR_SINGLE',
    recipient_view_url: payerViewUrl(baseUrl, row.id),
    invoicer_view_url: `${baseUrl}${invoicePath(row.id)}`,
  };
  if (row.first_sent_time) metadata.first_sent_time = row.first_sent_time;
  if (row.last_sent_time) metadata.last_sent_time = row.last_sent_time;
  if (row.cancel_time) metadata.cancel_time = row.cancel_time;
  return metadata;
}

/** What follows `detail` and depends on the body alone (contentOf). */
export interface InvoiceContent {
  invoicer?: InvoiceInput['invoicer'];
  primary_recipients?: InvoiceInput['primary_recipients'];
  additional_recipients?: InvoiceInput['additional_recipients'];
  items?: InvoiceItem[];
  configuration: InvoiceConfiguration;
  amount: InvoiceAmount;
}

/** What follows the content and depends on the row's state (settlementOf). */
export interface InvoiceSettlement {
  due_amount: Money;
  gratuity?: Money;
  payments?: { paid_amount: Money; transactions: InvoicePaymentDetail[] };
  refunds?: { refund_amount: Money; transactions: InvoiceRefundDetail[] };
}

/**
 * The API's invoice (declared once here; the CLI's client parses what it shows,
 * src/lib/api/invoices.ts). `detail` is the caller's detail with the stored number, date and metadata.
 */
export type InvoiceResource = { id: string; status: InvoiceStatus; detail: InvoiceDetail } & InvoiceContent & InvoiceSettlement & { links: Link[] };

/** `detail`: the body's detail with the stored number and date, and the metadata. */
function detailOf(input: InvoiceInput, row: InvoiceWrite, baseUrl: string): InvoiceDetail {
  const paymentTerm: InvoiceDetail['payment_term'] = { ...(input.detail.payment_term ?? {}) };
  const detail: InvoiceDetail = {
    ...input.detail,
    invoice_number: row.invoice_number,
    invoice_date: row.invoice_date,
    metadata: metadataOf(row, baseUrl),
  };
  if (Object.keys(paymentTerm).length > 0) detail.payment_term = paymentTerm;
  return detail;
}

/**
 * What follows `detail` and depends on the body alone (parties, items, configuration, amount): the
 * part of an invoice a view template keeps rendered (view-template.ts).
 */
export function contentOf(stored: StoredInvoice, amounts: InvoiceAmounts, currency: string): InvoiceContent {
  const input: InvoiceInput = stored.input;
  // Built in the API's field order; configuration and amount are set below.
  const content = {} as InvoiceContent;
  if (input.invoicer) content.invoicer = input.invoicer;
  if (input.primary_recipients) content.primary_recipients = input.primary_recipients;
  if (input.additional_recipients) content.additional_recipients = input.additional_recipients;
  if (input.items) content.items = renderItems(input.items, stored.item_ids, amounts, currency);
  content.configuration = {
    tax_calculated_after_discount: true,
    tax_inclusive: false,
    allow_tip: false,
    partial_payment: { allow_partial_payment: false },
    ...(input.configuration ?? {}),
  };
  content.amount = renderAmount(input, amounts);
  return content;
}

/** What follows the content and depends on the row's state: the due amount, payments, refunds. */
export function settlementOf(row: InvoiceWrite, transactions: Transactions): InvoiceSettlement {
  const currency = row.currency;
  const settlement: InvoiceSettlement = { due_amount: money(dueMinor(row), currency) };
  const tips = transactions.payments.reduce((sum, payment) => sum + BigInt(payment.gratuity_minor ?? '0'), 0n);
  if (tips > 0n) settlement.gratuity = money(tips, currency);
  if (transactions.payments.length > 0) {
    settlement.payments = {
      paid_amount: money(row.paid_minor, currency),
      transactions: transactions.payments.map(({ amount_minor: minor, gratuity_minor: _tip, ...payment }) => ({ ...payment, amount: money(BigInt(minor), currency) })),
    };
  }
  if (transactions.refunds.length > 0) {
    settlement.refunds = {
      refund_amount: money(row.refunded_minor, currency),
      transactions: transactions.refunds.map(({ amount_minor: minor, ...refund }) => ({ ...refund, amount: money(BigInt(minor), currency) })),
    };
  }
  return settlement;
}

export function invoiceResource(view: InvoiceView, baseUrl: string): InvoiceResource {
  const { row, stored, transactions, amounts } = view;
  return {
    id: row.id,
    status: statusOf(row),
    detail: detailOf(stored.input, row, baseUrl),
    ...contentOf(stored, amounts, row.currency),
    ...settlementOf(row, transactions),
    // Links last, where readers expect them.
    links: invoiceLinks(row, baseUrl),
  };
}

/** `fields=none`: the invoice's id, status, number and currency (the schema requires detail.currency_code). */
export function invoiceSummary(row: InvoiceWrite, baseUrl: string): InvoiceSummary {
  return {
    id: row.id,
    status: statusOf(row),
    detail: { invoice_number: row.invoice_number, currency_code: row.currency },
    links: [link(baseUrl, invoicePath(row.id), 'self', 'GET')],
  };
}

export type { NotificationInput };
