// The payer's view of a sent invoice: the page behind `recipient_view_url` and send's payer link.

import { fromMinorUnits } from '../../lib/money.js';
import { escapeHtml, htmlPage } from '../http/html.js';
import type { InvoiceView } from './resource.js';
import { dueMinor, statusOf } from './resource.js';
import type { InvoiceStatus } from './states.js';

/** Statuses a payer never sees: the invoice was not sent (yet), so its link must not work. */
const UNSENT: readonly InvoiceStatus[] = ['DRAFT', 'SCHEDULED'];

export function isVisibleToPayer(status: InvoiceStatus): boolean {
  return !UNSENT.includes(status);
}

const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem}table{border-collapse:collapse;width:100%}td,th{padding:.3rem .5rem;text-align:left;border-bottom:1px solid #ddd}td.n,th.n{text-align:right}';
const page = (title: string, body: string): string => htmlPage(title, body, STYLE);

function invoicerName(view: InvoiceView): string {
  const invoicer = view.stored.input.invoicer;
  const person = [invoicer?.name?.given_name, invoicer?.name?.surname].filter(Boolean).join(' ');
  return invoicer?.business_name || invoicer?.name?.full_name || person || invoicer?.email_address || 'The merchant';
}

/** What the payer should do now, in the words a payer reads. */
function statusLine(status: InvoiceStatus, due: string): string {
  if (status === 'CANCELLED') return 'This invoice was cancelled: there is nothing to pay.';
  if (status === 'PAID' || status === 'MARKED_AS_PAID') return 'This invoice is paid. Thank you.';
  if (status === 'REFUNDED' || status === 'MARKED_AS_REFUNDED' || status === 'PARTIALLY_REFUNDED') return 'This invoice was paid and refunded.';
  return `Amount due: <strong>${escapeHtml(due)}</strong>. Pay the merchant as agreed; they record the payment.`;
}

export function payerViewPage(view: InvoiceView): string {
  const { row, stored } = view;
  const currency = row.currency;
  const amount = (minor: bigint) => `${fromMinorUnits(minor, currency)} ${currency}`;
  const status = statusOf(row);
  const items = (stored.input.items ?? [])
    .map(
      (item) =>
        `<tr><td>${escapeHtml(item.name)}</td><td class="n">${escapeHtml(String(item.quantity))}</td><td class="n">${escapeHtml(`${item.unit_amount.value} ${item.unit_amount.currency_code}`)}</td></tr>`,
    )
    .join('');
  const note = stored.input.detail.note ? `<p>${escapeHtml(stored.input.detail.note)}</p>` : '';
  const body = [
    `<h1>Invoice ${escapeHtml(row.invoice_number)}</h1>`,
    `<p>From <strong>${escapeHtml(invoicerName(view))}</strong>. Invoice date ${escapeHtml(row.invoice_date)}${row.due_date ? `, due ${escapeHtml(row.due_date)}` : ''}. Status: <strong>${escapeHtml(status)}</strong>.</p>`,
    items ? `<table><tr><th>Item</th><th class="n">Quantity</th><th class="n">Unit price</th></tr>${items}</table>` : '',
    `<p>Total: <strong>${escapeHtml(amount(row.total_minor))}</strong>${row.paid_minor > 0n ? `; paid ${escapeHtml(amount(row.paid_minor))}` : ''}.</p>`,
    `<p>${statusLine(status, amount(dueMinor(row)))}</p>`,
    note,
  ].join('\n');
  return page(`Invoice ${row.invoice_number}`, body);
}

export function missingInvoicePage(): string {
  return page('Invoice not found', '<h1>Invoice not found</h1><p>Check the link and try again.</p>');
}
