// Search criteria as the store understands them, from the API's `search_data`.

import { MoneyParseError, toMinorUnits } from '../../lib/money.js';
import { serviceError } from '../http/errors.js';
import type { SearchInput } from './schema.js';
import type { InvoiceSearch } from './store.js';

function rangeMinor(value: string, currency: string, field: string): bigint {
  try {
    return toMinorUnits(value, currency);
  } catch (error) {
    if (error instanceof MoneyParseError) throw serviceError('INVALID_REQUEST', 'INVALID_PARAMETER_SYNTAX', error.message, { field, value, location: 'body' });
    throw error;
  }
}

export function toSearch(input: SearchInput): InvoiceSearch {
  if (input.payment_date_range !== undefined) {
    throw serviceError('INVALID_REQUEST', 'NOT_SUPPORTED', 'Searching by payment date is not supported by this server.', {
      field: '/payment_date_range',
      location: 'body',
    });
  }
  const search: InvoiceSearch = {};
  if (input.recipient_email !== undefined) search.recipientEmail = input.recipient_email;
  if (input.recipient_first_name !== undefined) search.recipientFirstName = input.recipient_first_name;
  if (input.recipient_last_name !== undefined) search.recipientLastName = input.recipient_last_name;
  if (input.recipient_business_name !== undefined) search.recipientBusinessName = input.recipient_business_name;
  if (input.invoice_number !== undefined) search.invoiceNumber = input.invoice_number;
  if (input.status !== undefined) search.statuses = [...input.status];
  if (input.reference !== undefined) search.reference = input.reference;
  if (input.currency_code !== undefined) search.currency = input.currency_code;
  if (input.memo !== undefined) search.memo = input.memo;
  // Nothing is ever archived here: asking for archived invoices finds none.
  if (input.archived === true) search.matchNothing = true;
  const range = input.total_amount_range;
  if (range !== undefined) {
    const currency = range.lower_amount.currency_code;
    if (range.upper_amount.currency_code !== currency) {
      throw serviceError('INVALID_REQUEST', 'INVALID_PARAMETER_VALUE', 'Both ends of the range must be in one currency.', {
        field: '/total_amount_range/upper_amount/currency_code',
        location: 'body',
      });
    }
    search.currency = currency;
    search.totalRange = {
      lower: rangeMinor(range.lower_amount.value, currency, '/total_amount_range/lower_amount/value'),
      upper: rangeMinor(range.upper_amount.value, currency, '/total_amount_range/upper_amount/value'),
    };
  }
  if (input.invoice_date_range !== undefined) search.invoiceDateRange = { ...input.invoice_date_range };
  if (input.due_date_range !== undefined) search.dueDateRange = { ...input.due_date_range };
  if (input.creation_date_range !== undefined) {
    search.creationRange = { start: input.creation_date_range.start, end: input.creation_date_range.end };
  }
  return search;
}
