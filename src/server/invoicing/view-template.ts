// An invoice's JSON text, kept half-rendered beside its body so that a list page does not price and
// render every invoice on every read.
//
// Most of an invoice resource depends on its body alone: the detail fields, parties, items with
// their computed taxes and discounts, configuration and amount. The store keeps that part, rendered
// once per write, as a view template: the detail's fields as text with holes where the row's number,
// date and metadata go, and the content after the detail as text. A read fills the holes and adds
// what depends on the row's state (id, status, due amount, payments, refunds, links). The text is
// the same, byte for byte, as JSON.stringify of invoiceResource (test/server/invoice-views.test.ts).
// A row without a template, or with one of another version, is rendered the long way.

import { priceContent } from './pricing.js';
import { contentOf, invoiceLinks, invoiceResource, metadataOf, settlementOf, statusOf, transactionsOf, viewOf, type StoredInvoice } from './resource.js';
import type { InvoiceRow } from './store.js';

/** Bump when the rendering of any part a template keeps changes: older templates are then ignored. */
export const VIEW_TEMPLATE_VERSION = '1';

/**
 * The stored form is lines, read by a split instead of a JSON parse (a third of a page's reading
 * time when it was JSON): the version; then the detail's `"key":value` members in order, where
 * `#number`, `#date` and `#metadata` are holes filled from the row; last, the members after the
 * detail without braces (never empty: configuration and amount are always there). JSON text has
 * no raw line breaks, and a member starts with a quote, so the lines cannot be confused.
 */
const HOLE_LINES = new Map([
  ['invoice_number', '#number'],
  ['invoice_date', '#date'],
  ['metadata', '#metadata'],
]);

/** The view template of an invoice body, as stored in invoices.view_template. */
export function viewTemplate(body: string, currency: string): string {
  const stored = JSON.parse(body) as StoredInvoice;
  const given = stored.input.detail;
  const detail: string[] = [];
  // The resource's detail is {...input.detail, invoice_number, invoice_date, metadata}: a key the body
  // already has keeps its place, the others follow in that order. (Parsed JSON holds no undefined.)
  for (const [key, value] of Object.entries(given)) detail.push(HOLE_LINES.get(key) ?? `${JSON.stringify(key)}:${JSON.stringify(value)}`);
  for (const [key, hole] of HOLE_LINES) if (!Object.hasOwn(given, key)) detail.push(hole);
  const content = JSON.stringify(contentOf(stored, priceContent(stored.input), currency)).slice(1, -1);
  return [VIEW_TEMPLATE_VERSION, ...detail, content].join('\n');
}

/**
 * Appends the invoice's JSON text to `out`: the text of JSON.stringify(invoiceResource(viewOf(row),
 * baseUrl)), from the template when the row has a usable one. A page joins its parts once (a string
 * built by `+` would be flattened again when sent).
 */
export function appendInvoiceJson(out: string[], row: InvoiceRow, baseUrl: string): void {
  const lines = row.view_template?.split('\n');
  if (!lines || lines[0] !== VIEW_TEMPLATE_VERSION || lines.length < 3) {
    out.push(JSON.stringify(invoiceResource(viewOf(row), baseUrl)));
    return;
  }
  out.push('{"id":', JSON.stringify(row.id), ',"status":', JSON.stringify(statusOf(row)), ',"detail":{');
  const last = lines.length - 1;
  for (let index = 1; index < last; index += 1) {
    const line = lines[index] as string;
    if (index > 1) out.push(',');
    if (line === '#number') out.push('"invoice_number":', JSON.stringify(row.invoice_number));
    else if (line === '#date') out.push('"invoice_date":', JSON.stringify(row.invoice_date));
    else if (line === '#metadata') out.push('"metadata":', JSON.stringify(metadataOf(row, baseUrl)));
    else out.push(line);
  }
  out.push('},', lines[last] as string, ',', JSON.stringify(settlementOf(row, transactionsOf(row))).slice(1, -1));
  out.push(',"links":', JSON.stringify(invoiceLinks(row, baseUrl)), '}');
}

/** What is wrong with a row's view template (undefined when nothing): for the audit. Older versions are not read, so not checked. */
export function viewTemplateProblem(row: Pick<InvoiceRow, 'body' | 'currency' | 'view_template'>): string | undefined {
  if (!row.view_template?.startsWith(`${VIEW_TEMPLATE_VERSION}\n`)) return undefined;
  if (row.view_template === viewTemplate(row.body, row.currency)) return undefined;
  return 'view_template: does not match the body (list pages would show something else than the invoice)';
}
