// Invoices: create (DRAFT), read, full replacement, delete, number generation, list and search.

import { isoMillis } from '../core/clock.js';
import type { ServiceContext } from '../core/deps.js';
import { writeEventIn } from '../core/events.js';
import { prefixedId, upperId } from '../core/ids.js';
import type { ReadOptions } from '../db/prepared.js';
import { serviceError, type IssueCode } from '../http/errors.js';
import { link, type Link } from '../http/links.js';
import { priceContent } from './pricing.js';
import { invoiceResource, invoiceSummary, NO_TRANSACTIONS, viewOf, statusOf, type InvoiceResource, type StoredInvoice } from './resource.js';
import type { InvoiceInput } from './schema.js';
import { assertCanPerform } from './states.js';
import * as store from './store.js';
import { appendInvoiceJson } from './view-template.js';

export const todayOf = (now: Date): string => now.toISOString().slice(0, 10);

export function addDays(date: string, days: number): string {
  const time = Date.parse(`${date}T00:00:00Z`) + days * 86_400_000;
  return new Date(time).toISOString().slice(0, 10);
}

const NET_DAYS: Record<string, number> = { NET_10: 10, NET_15: 15, NET_30: 30, NET_45: 45, NET_60: 60, NET_90: 90 };

const invalid = (issue: IssueCode, description: string, field: string, value?: unknown) =>
  serviceError('INVALID_REQUEST', issue, description, { field, ...(value === undefined ? {} : { value }), location: 'body' });

/** The payment term with its due date worked out from the invoice date. */
function resolvePaymentTerm(input: InvoiceInput, invoiceDate: string): { term_type?: string; due_date?: string } | undefined {
  const given = input.detail.payment_term;
  if (!given) return undefined;
  const term = given.term_type ?? (given.due_date ? 'DUE_ON_DATE_SPECIFIED' : undefined);
  let due = given.due_date;
  if (due === undefined && term !== undefined) {
    if (term === 'DUE_ON_RECEIPT') due = invoiceDate;
    else if (term in NET_DAYS) due = addDays(invoiceDate, NET_DAYS[term] as number);
    else if (term === 'DUE_ON_DATE_SPECIFIED') {
      throw invalid('MISSING_REQUIRED_PARAMETER', 'A due date is required with DUE_ON_DATE_SPECIFIED.', '/detail/payment_term/due_date');
    }
  }
  if (due !== undefined && due < invoiceDate) {
    throw invalid('INVALID_PARAMETER_VALUE', 'The due date cannot be before the invoice date.', '/detail/payment_term/due_date', due);
  }
  return { ...(term !== undefined ? { term_type: term } : {}), ...(due !== undefined ? { due_date: due } : {}) };
}

async function takeNextNumber(ctx: ServiceContext): Promise<string> {
  for (let attempt = 0; attempt < 1000; attempt += 1) {
    const candidate = String(await store.nextCounterValue(ctx.db, ctx.accountId)).padStart(4, '0');
    if (!(await store.findInvoiceByNumber(ctx.db, ctx.accountId, candidate))) return candidate;
  }
  throw new Error('no free invoice number after 1000 attempts');
}

/** POST /v2/invoicing/generate-next-invoice-number: reserves and returns the next number. */
export async function generateNextNumber(ctx: ServiceContext): Promise<{ invoice_number: string }> {
  return { invoice_number: await takeNextNumber(ctx) };
}

/**
 * The caller's invoice, or 403 when it is another merchant's, or 404 when there is none.
 * `forUpdate` (every change of an invoice) locks it until the transaction ends, so that what is
 * computed from it (amounts paid and refunded, its status) still holds when it is written.
 */
export async function ownInvoice(ctx: ServiceContext, id: string, options: ReadOptions = {}): Promise<store.InvoiceRow> {
  const row = await store.findInvoice(ctx.db, ctx.accountId, id, options);
  if (row) return row;
  const where = { field: 'invoice_id', value: id, location: 'path' as const };
  if (await store.invoiceExists(ctx.db, id)) {
    throw serviceError('NOT_AUTHORIZED', 'PERMISSION_DENIED', 'The invoice does not belong to the requesting merchant.', where);
  }
  throw serviceError('RESOURCE_NOT_FOUND', 'INVALID_RESOURCE_ID', 'Specified resource ID does not exist. Please check the resource ID and try again.', where);
}

const duplicateNumber = (number: string) =>
  serviceError('UNPROCESSABLE_ENTITY', 'DUPLICATE_INVOICE_NUMBER', 'Another invoice already has this invoice number.', {
    field: '/detail/invoice_number',
    value: number,
  });

/** The unique index on (account_id, invoice_number) refused a write: SQLite's or PostgreSQL's words for it. */
function isNumberTaken(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, constraint, message } = error as { code?: unknown; constraint?: unknown; message?: unknown };
  if (code === '23505') return constraint === 'invoices_number';
  return code === 'SQLITE_CONSTRAINT_UNIQUE' && typeof message === 'string' && message.includes('invoices.invoice_number');
}

/**
 * Writes a row whose number was checked free just before: another request (another replica) may
 * have taken the number in between; the unique index then refuses the write, and the answer is
 * the same as the check's.
 */
async function numberChecked(number: string, write: Promise<void>): Promise<void> {
  try {
    await write;
  } catch (error) {
    if (isNumberTaken(error)) throw duplicateNumber(number);
    throw error;
  }
}

/** Fills the row's scalar columns and the stored body from a whole invoice body. */
async function buildRow(ctx: ServiceContext, input: InvoiceInput, current: store.InvoiceRow | undefined): Promise<store.InvoiceWrite> {
  const amounts = priceContent(input);
  const invoiceDate = input.detail.invoice_date ?? current?.invoice_date ?? todayOf(ctx.now);
  const number = input.detail.invoice_number ?? current?.invoice_number ?? (await takeNextNumber(ctx));
  const holder = await store.findInvoiceByNumber(ctx.db, ctx.accountId, number);
  if (holder && holder.id !== current?.id) throw duplicateNumber(number);
  const paymentTerm = resolvePaymentTerm(input, invoiceDate);
  const detail = { ...input.detail, invoice_number: number, invoice_date: invoiceDate };
  if (paymentTerm) detail.payment_term = paymentTerm as typeof detail.payment_term;
  const previous = current ? viewOf(current).stored : undefined;
  const stored: StoredInvoice = {
    input: { ...input, detail },
    item_ids: (input.items ?? []).map(() => `ITEM-${upperId(ctx.deps.ids, 17)}`),
    ...(previous?.notification ? { notification: previous.notification } : {}),
  };
  const billing = input.primary_recipients?.[0]?.billing_info;
  const time = isoMillis(ctx.now);
  return {
    id: current?.id ?? prefixedId(ctx.deps.ids, 'INV2', 19),
    account_id: ctx.accountId,
    invoice_number: number,
    status: current?.status ?? 'DRAFT',
    currency: input.detail.currency_code,
    total_minor: amounts.total,
    paid_minor: current?.paid_minor ?? 0n,
    refunded_minor: current?.refunded_minor ?? 0n,
    invoice_date: invoiceDate,
    due_date: paymentTerm?.due_date ?? null,
    recipient_email: billing?.email_address ?? null,
    recipient_given_name: billing?.name?.given_name ?? null,
    recipient_surname: billing?.name?.surname ?? null,
    recipient_business_name: billing?.business_name ?? null,
    reference: input.detail.reference ?? null,
    memo: input.detail.memo ?? null,
    body: JSON.stringify(stored),
    transactions: current?.transactions ?? NO_TRANSACTIONS,
    create_time: current?.create_time ?? time,
    update_time: time,
    first_sent_time: current?.first_sent_time ?? null,
    last_sent_time: current?.last_sent_time ?? null,
    cancel_time: current?.cancel_time ?? null,
  };
}

export type InvoiceEventType = 'CREATED' | 'UPDATED' | 'SCHEDULED' | 'PAID' | 'REFUNDED' | 'CANCELLED';

/** Writes INVOICING.INVOICE.<type> with the invoice as it now is, in the caller's transaction. */
export async function recordInvoiceEvent(ctx: ServiceContext, type: InvoiceEventType, resource: InvoiceResource, summary: string): Promise<void> {
  await writeEventIn(ctx, {
      accountId: ctx.accountId,
      eventType: `INVOICING.INVOICE.${type}`,
      resourceType: 'invoices',
      resourceId: resource.id,
      resource: { invoice: resource },
      summary,
    },
  );
}

export async function createInvoice(ctx: ServiceContext, input: InvoiceInput): Promise<InvoiceResource> {
  const row = await buildRow(ctx, input, undefined);
  await numberChecked(row.invoice_number, store.insertInvoice(ctx.db, row));
  const resource = invoiceResource(viewOf(row), ctx.baseUrl);
  await recordInvoiceEvent(ctx, 'CREATED', resource, `An invoice ${row.invoice_number} was created.`);
  return resource;
}

export async function getInvoice(ctx: ServiceContext, id: string): Promise<InvoiceResource> {
  return invoiceResource(viewOf(await ownInvoice(ctx, id)), ctx.baseUrl);
}

/** PUT: the body replaces the invoice; status, payments and refunds are the server's and stay. */
export async function replaceInvoice(ctx: ServiceContext, id: string, input: InvoiceInput): Promise<{ resource: InvoiceResource; before: store.InvoiceRow }> {
  const current = await ownInvoice(ctx, id, { forUpdate: true });
  assertCanPerform('update', statusOf(current));
  const row = await buildRow(ctx, input, current);
  await numberChecked(row.invoice_number, store.updateInvoice(ctx.db, row));
  const resource = invoiceResource(viewOf(row), ctx.baseUrl);
  await recordInvoiceEvent(ctx, 'UPDATED', resource, `An invoice ${row.invoice_number} was updated.`);
  return { resource, before: current };
}

export async function deleteInvoice(ctx: ServiceContext, id: string): Promise<void> {
  const current = await ownInvoice(ctx, id, { forUpdate: true });
  assertCanPerform('delete', statusOf(current));
  await store.deleteInvoice(ctx.db, ctx.accountId, id);
}

/** A page of invoices as its JSON text: invoices are read from their view templates (view-template.ts). */
export interface InvoicePage {
  json: string;
}

export interface PageQuery {
  page?: number | undefined;
  page_size?: number | undefined;
  total_required?: boolean | undefined;
  fields?: string | undefined;
}

/** The largest page the API serves. */
export const MAX_PAGE = 1000;

function pageLinks(baseUrl: string, path: string, page: number, size: number, totalItems: number, extra: string): Link[] {
  const lastPage = Math.min(MAX_PAGE, Math.max(1, Math.ceil(totalItems / size)));
  const at = (n: number, rel: string) => link(baseUrl, `${path}?page=${n}&page_size=${size}${extra}`, rel, 'GET');
  const links = [at(page, 'self'), at(1, 'first'), at(lastPage, 'last')];
  if (page < lastPage) links.push(at(page + 1, 'next'));
  if (page > 1) links.push(at(Math.min(page - 1, lastPage), 'prev'));
  return links;
}

function pageOf(ctx: ServiceContext, rows: store.InvoiceRow[], query: PageQuery, links: Link[], totalItems: number, size: number): InvoicePage {
  const out: string[] = ['{'];
  if (query.total_required) out.push('"total_pages":', String(Math.ceil(totalItems / size)), ',"total_items":', String(totalItems), ',');
  out.push('"items":[');
  rows.forEach((row, index) => {
    if (index > 0) out.push(',');
    if (query.fields === 'none') out.push(JSON.stringify(invoiceSummary(row, ctx.baseUrl)));
    else appendInvoiceJson(out, row, ctx.baseUrl);
  });
  out.push('],"links":', JSON.stringify(links), '}');
  return { json: out.join('') };
}

/** GET /v2/invoicing/invoices: newest first, `page_size` (≤ 100) per page. */
export async function listInvoices(ctx: ServiceContext, query: PageQuery): Promise<InvoicePage> {
  const page = query.page ?? 1;
  const size = query.page_size ?? 20;
  const totalItems = await store.countInvoices(ctx.db, ctx.deps.storage, ctx.accountId);
  const rows = await store.listInvoicePage(ctx.db, ctx.deps.storage, ctx.accountId, size, (page - 1) * size);
  const extra = `${query.total_required ? '&total_required=true' : ''}${query.fields ? `&fields=${query.fields}` : ''}`;
  return pageOf(ctx, rows, query, pageLinks(ctx.baseUrl, '/v2/invoicing/invoices', page, size, totalItems, extra), totalItems, size);
}

export async function searchInvoices(ctx: ServiceContext, search: store.InvoiceSearch, query: PageQuery): Promise<InvoicePage> {
  const page = query.page ?? 1;
  const size = query.page_size ?? 20;
  const totalItems = await store.countSearch(ctx.db, ctx.accountId, search);
  const rows = await store.searchInvoices(ctx.db, ctx.accountId, search, size, (page - 1) * size);
  const extra = query.total_required ? '&total_required=true' : '';
  const links = pageLinks(ctx.baseUrl, '/v2/invoicing/search-invoices', page, size, totalItems, extra).map((item) => ({ ...item, method: 'POST' as const }));
  return pageOf(ctx, rows, query, links, totalItems, size);
}
