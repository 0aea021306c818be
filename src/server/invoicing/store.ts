// Storage of templates, invoices, invoice number counters and the e-mail outbox. Every query names
// the owning account; cross-account lookups only ever answer "exists elsewhere", never the row.

import { sql } from 'kysely';
import { findRow, insertRow, rowExists, type ReadOptions, updateRows } from '../db/prepared.js';
import type { Queryable, WithSeq } from '../db/schema.js';
import type { Storage } from '../db/storage.js';
import { listIndexOf, seekFrom } from './page-index.js';
import { viewTemplate } from './view-template.js';

export interface TemplateRow {
  id: string;
  account_id: string;
  name: string;
  is_default: bigint;
  is_standard: bigint;
  body: string;
  create_time: string;
  update_time: string;
}

export interface InvoiceRow {
  id: string;
  account_id: string;
  invoice_number: string;
  status: string;
  currency: string;
  total_minor: bigint;
  paid_minor: bigint;
  refunded_minor: bigint;
  invoice_date: string;
  due_date: string | null;
  recipient_email: string | null;
  recipient_given_name: string | null;
  recipient_surname: string | null;
  recipient_business_name: string | null;
  reference: string | null;
  memo: string | null;
  body: string;
  transactions: string;
  create_time: string;
  update_time: string;
  first_sent_time: string | null;
  last_sent_time: string | null;
  cancel_time: string | null;
  /** The body's rendering for reads (view-template.ts), written with the body; null in rows older than it. */
  view_template: string | null;
}

/** An invoice as written: the store derives its view template from the body. */
export type InvoiceWrite = Omit<InvoiceRow, 'view_template'>;

export interface OutboxRow {
  id: string;
  account_id: string;
  invoice_id: string | null;
  kind: string;
  to_address: string;
  subject: string;
  body: string;
  create_time: string;
}

declare module '../db/schema.js' {
  interface Database {
    invoice_templates: TemplateRow;
    invoices: InvoiceRow;
    invoice_number_counters: { account_id: string; last_number: bigint };
    email_outbox: WithSeq<OutboxRow>;
  }
}

// ---- templates ----

export function findTemplate(db: Queryable, accountId: string, id: string): Promise<TemplateRow | undefined> {
  return findRow(db, 'invoice_templates', { account_id: accountId, id });
}

/** Whether a template with this id exists for any account (to tell 403 from 404). */
export function templateExists(db: Queryable, id: string): Promise<boolean> {
  return rowExists(db, 'invoice_templates', { id });
}

export function findTemplateByName(db: Queryable, accountId: string, name: string): Promise<{ id: string } | undefined> {
  return db
    .selectFrom('invoice_templates')
    .select('id')
    .where('account_id', '=', accountId)
    .where('name', '=', name)
    .executeTakeFirst();
}

export async function countTemplates(db: Queryable, accountId: string, standard: boolean): Promise<number> {
  const row = await db
    .selectFrom('invoice_templates')
    .select((eb) => eb.fn.countAll<bigint>().as('n'))
    .where('account_id', '=', accountId)
    .where('is_standard', '=', standard ? 1n : 0n)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function listTemplates(db: Queryable, accountId: string, limit: number, offset: number): Promise<TemplateRow[]> {
  return db
    .selectFrom('invoice_templates')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('is_standard', 'desc')
    .orderBy('create_time')
    .orderBy('id')
    .limit(limit)
    .offset(offset)
    .execute();
}

export async function insertTemplate(db: Queryable, row: TemplateRow): Promise<void> {
  await db.insertInto('invoice_templates').values(row).execute();
}

export async function replaceTemplate(db: Queryable, row: TemplateRow): Promise<void> {
  await db
    .updateTable('invoice_templates')
    .set({ name: row.name, is_default: row.is_default, body: row.body, update_time: row.update_time })
    .where('account_id', '=', row.account_id)
    .where('id', '=', row.id)
    .execute();
}

/** An account has at most one default template: clears the flag on every other one. */
export async function clearDefaultTemplate(db: Queryable, accountId: string, exceptId: string): Promise<void> {
  await db
    .updateTable('invoice_templates')
    .set({ is_default: 0n })
    .where('account_id', '=', accountId)
    .where('id', '!=', exceptId)
    .where('is_default', '=', 1n)
    .execute();
}

export async function deleteTemplate(db: Queryable, accountId: string, id: string): Promise<void> {
  await db.deleteFrom('invoice_templates').where('account_id', '=', accountId).where('id', '=', id).execute();
}

// ---- invoices ----

/** The invoice; every change of an invoice loads it `forUpdate`, locked until the transaction ends. */
export function findInvoice(db: Queryable, accountId: string, id: string, options: ReadOptions = {}): Promise<InvoiceRow | undefined> {
  return findRow(db, 'invoices', { account_id: accountId, id }, options);
}

/**
 * Any merchant's invoice by id alone, for the payer's page: like an order's approve link, the
 * link's unguessable id is the key (the payer has no credentials), and the page shows only what
 * the payer was sent.
 */
export function findInvoiceForPayer(db: Queryable, id: string): Promise<InvoiceRow | undefined> {
  return db.selectFrom('invoices').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Whether an invoice with this id exists for any account (to tell 403 from 404). */
export function invoiceExists(db: Queryable, id: string): Promise<boolean> {
  return rowExists(db, 'invoices', { id });
}

export function findInvoiceByNumber(db: Queryable, accountId: string, number: string): Promise<{ id: string } | undefined> {
  return db
    .selectFrom('invoices')
    .select('id')
    .where('account_id', '=', accountId)
    .where('invoice_number', '=', number)
    .executeTakeFirst();
}

export async function insertInvoice(db: Queryable, row: InvoiceWrite): Promise<void> {
  await insertRow(db, 'invoices', { ...row, view_template: viewTemplate(row.body, row.currency) });
}

export async function updateInvoice(db: Queryable, row: InvoiceWrite): Promise<void> {
  const { id, account_id: accountId, ...rest } = row;
  await updateRows(db, 'invoices', { account_id: accountId, id }, { ...rest, view_template: viewTemplate(row.body, row.currency) });
}

export async function deleteInvoice(db: Queryable, accountId: string, id: string): Promise<void> {
  await db.deleteFrom('invoices').where('account_id', '=', accountId).where('id', '=', id).execute();
}

export async function countInvoices(db: Queryable, storage: Storage, accountId: string): Promise<number> {
  const index = await listIndexOf(db, storage, accountId);
  if (index) return index.count;
  const row = await db
    .selectFrom('invoices')
    .select((eb) => eb.fn.countAll<bigint>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * One page, newest first, read along the (account, create_time DESC, id DESC) index. SQLite skips
 * the offset's entries on the index without reading their rows (deferred seek), so page 1000 of
 * 100 costs a walk of 99,900 index entries, not a scan of the table and no sort.
 */
export async function listInvoicePage(db: Queryable, storage: Storage, accountId: string, limit: number, offset: number): Promise<InvoiceRow[]> {
  // Deep pages seek from the nearest anchor of the in-memory list index (same order, same rows).
  const seek = offset >= 500 ? await seekFrom(db, storage, accountId, await listIndexOf(db, storage, accountId), offset) : { offset };
  let query = db.selectFrom('invoices').selectAll().where('account_id', '=', accountId);
  if (seek.after) {
    const { createTime, id } = seek.after;
    query = query.where((eb) => eb(eb.refTuple('create_time', 'id'), '<', eb.tuple(createTime, id)));
  }
  return query.orderBy('create_time', 'desc').orderBy('id', 'desc').limit(limit).offset(seek.offset).execute();
}

/** The SQL of the list's page query, for EXPLAIN QUERY PLAN in tests. */
export const LIST_PAGE_SQL =
  'SELECT * FROM invoices WHERE account_id = ? ORDER BY create_time DESC, id DESC LIMIT ? OFFSET ?';

export interface InvoiceSearch {
  recipientEmail?: string;
  recipientFirstName?: string;
  recipientLastName?: string;
  recipientBusinessName?: string;
  invoiceNumber?: string;
  statuses?: string[];
  reference?: string;
  currency?: string;
  memo?: string;
  totalRange?: { lower: bigint; upper: bigint };
  invoiceDateRange?: { start: string; end: string };
  dueDateRange?: { start: string; end: string };
  creationRange?: { start: string; end: string };
  /** A criterion nothing can meet (archived invoices: there are none). */
  matchNothing?: boolean;
}

function searchQuery(db: Queryable, accountId: string, search: InvoiceSearch) {
  let query = db.selectFrom('invoices').where('account_id', '=', accountId);
  if (search.matchNothing) query = query.where(sql<boolean>`1 = 0`);
  const like = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  // Case-insensitive on both databases: SQLite's LIKE ignores ASCII case, PostgreSQL's does not; with
  // both sides lowered (SQLite lowers ASCII only) the match is the same as SQLite's LIKE alone.
  const contains = (column: string, text: string) => sql<boolean>`lower(${sql.ref(column)}) LIKE lower(${like(text)}) ESCAPE '\\'`;
  if (search.recipientEmail !== undefined) query = query.where(sql<boolean>`lower(recipient_email) = lower(${search.recipientEmail})`);
  if (search.recipientFirstName !== undefined)
    query = query.where(contains('recipient_given_name', search.recipientFirstName));
  if (search.recipientLastName !== undefined)
    query = query.where(contains('recipient_surname', search.recipientLastName));
  if (search.recipientBusinessName !== undefined)
    query = query.where(contains('recipient_business_name', search.recipientBusinessName));
  if (search.invoiceNumber !== undefined) query = query.where('invoice_number', '=', search.invoiceNumber);
  if (search.statuses !== undefined && search.statuses.length > 0) query = query.where('status', 'in', search.statuses);
  if (search.reference !== undefined) query = query.where('reference', '=', search.reference);
  if (search.currency !== undefined) query = query.where('currency', '=', search.currency);
  if (search.memo !== undefined) query = query.where(contains('memo', search.memo));
  if (search.totalRange !== undefined) {
    query = query.where('total_minor', '>=', search.totalRange.lower).where('total_minor', '<=', search.totalRange.upper);
  }
  if (search.invoiceDateRange !== undefined) {
    query = query.where('invoice_date', '>=', search.invoiceDateRange.start).where('invoice_date', '<=', search.invoiceDateRange.end);
  }
  if (search.dueDateRange !== undefined) {
    query = query.where('due_date', '>=', search.dueDateRange.start).where('due_date', '<=', search.dueDateRange.end);
  }
  if (search.creationRange !== undefined) {
    query = query.where('create_time', '>=', search.creationRange.start).where('create_time', '<=', search.creationRange.end);
  }
  return query;
}

export function searchInvoices(db: Queryable, accountId: string, search: InvoiceSearch, limit: number, offset: number): Promise<InvoiceRow[]> {
  return searchQuery(db, accountId, search)
    .selectAll()
    .orderBy('create_time', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
}

export async function countSearch(db: Queryable, accountId: string, search: InvoiceSearch): Promise<number> {
  const row = await searchQuery(db, accountId, search)
    .select((eb) => eb.fn.countAll<bigint>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** SCHEDULED invoices of an account whose invoice date is on or before `today`. */
export function dueScheduledInvoices(db: Queryable, accountId: string, today: string): Promise<InvoiceRow[]> {
  return db
    .selectFrom('invoices')
    .selectAll()
    .where('status', '=', 'SCHEDULED')
    .where('invoice_date', '<=', today)
    .where('account_id', '=', accountId)
    .orderBy('invoice_date')
    .limit(500)
    .execute();
}

/** Accounts that have at least one SCHEDULED invoice. */
export async function accountsWithScheduledInvoices(db: Queryable): Promise<string[]> {
  const rows = await db.selectFrom('invoices').select('account_id').distinct().where('status', '=', 'SCHEDULED').execute();
  return rows.map((row) => row.account_id);
}

/**
 * Takes the account's next invoice number from its counter: one statement, so two transactions
 * taking numbers at once (PostgreSQL, READ COMMITTED) get two numbers (the second waits on the row).
 */
export async function nextCounterValue(db: Queryable, accountId: string): Promise<bigint> {
  const row = await db
    .insertInto('invoice_number_counters')
    .values({ account_id: accountId, last_number: 1n })
    .onConflict((conflict) =>
      conflict.column('account_id').doUpdateSet((eb) => ({ last_number: eb('invoice_number_counters.last_number', '+', 1n) })),
    )
    .returning('last_number')
    .executeTakeFirstOrThrow();
  return row.last_number;
}

// ---- outbox ----

export async function insertOutboxMessage(db: Queryable, row: OutboxRow): Promise<void> {
  await db.insertInto('email_outbox').values(row).execute();
}

export function listOutbox(db: Queryable, accountId: string, limit: number, invoiceId?: string): Promise<OutboxRow[]> {
  let query = db.selectFrom('email_outbox').selectAll().where('account_id', '=', accountId);
  if (invoiceId !== undefined) query = query.where('invoice_id', '=', invoiceId);
  return query.orderBy('seq', 'desc').limit(limit).execute();
}

export async function deleteAccountInvoicing(db: Queryable, accountId: string): Promise<void> {
  await db.deleteFrom('email_outbox').where('account_id', '=', accountId).execute();
  await db.deleteFrom('invoices').where('account_id', '=', accountId).execute();
  await db.deleteFrom('invoice_number_counters').where('account_id', '=', accountId).execute();
  await db.deleteFrom('invoice_templates').where('account_id', '=', accountId).execute();
}
