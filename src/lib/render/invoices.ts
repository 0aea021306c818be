// How invoices read in a table: the columns of list and search.

import type { Invoice } from '../api/invoices.js';
import { formatMoney } from './format.js';
import type { Column } from './table.js';

/** Who the invoice is for: the first recipient's e-mail, business or name. */
export function recipientOf(invoice: Invoice): string {
  const billing = invoice.primary_recipients?.[0]?.billing_info;
  if (!billing) return '';
  const name = [billing.name?.given_name, billing.name?.surname].filter(Boolean).join(' ');
  return billing.email_address ?? billing.business_name ?? name;
}

/** The columns of every invoice table (list and search). */
export const INVOICE_COLUMNS: ReadonlyArray<Column<Invoice>> = [
  { header: 'Number', value: (invoice) => invoice.detail.invoice_number, id: true },
  { header: 'ID', value: (invoice) => invoice.id },
  { header: 'Recipient', value: recipientOf },
  { header: 'Status', value: (invoice) => invoice.status, status: true },
  { header: 'Total', value: (invoice) => formatMoney(invoice.amount) },
  { header: 'Due', value: (invoice) => formatMoney(invoice.due_amount) },
  { header: 'Due date', value: (invoice) => invoice.detail.payment_term?.due_date },
];
