// A balance movement as the report's transaction detail.

import { money } from '../../lib/money.js';
import { eventCodeOf } from './event-codes.js';
import type { ReportRow } from './store.js';
import type { TransactionInfo } from './types.js';

/** The report's ids are letters and digits (at most 24): a dispute's id loses its dashes. */
export function reportId(id: string): string {
  return id.replace(/[^A-Za-z0-9]/g, '').slice(0, 24);
}

/** A stored time (`...SS.mmmZ`) as the report gives it: whole seconds without their `.000`. */
export function reportTime(stored: string): string {
  return stored.endsWith('.000Z') ? `${stored.slice(0, -5)}Z` : stored;
}

export interface PresentOptions {
  /** Leave out the ending balance (the published API does when an optional filter was given). */
  withoutEndingBalance: boolean;
}

export function transactionInfo(row: ReportRow, options: PresentOptions): TransactionInfo {
  // Built in the API's field order; the required fields are set below.
  const info = { transaction_id: reportId(row.reference_id) } as TransactionInfo;
  if (row.related_id !== null) {
    info.paypal_reference_id = reportId(row.related_id);
    info.paypal_reference_id_type = 'TXN';
  }
  info.transaction_event_code = eventCodeOf(row.kind, BigInt(row.amount_minor));
  info.transaction_initiation_date = reportTime(row.create_time);
  info.transaction_updated_date = reportTime(row.create_time);
  info.transaction_amount = money(BigInt(row.gross_minor), row.currency);
  if (BigInt(row.fee_minor) !== 0n) info.fee_amount = money(BigInt(row.fee_minor), row.currency);
  info.transaction_status = row.status;
  if (!options.withoutEndingBalance) info.ending_balance = money(BigInt(row.balance_after), row.currency);
  // Nothing is withheld from the balance here (no holds): all of it is available.
  info.available_balance = money(BigInt(row.balance_after), row.currency);
  if (row.invoice_id !== null) info.invoice_id = row.invoice_id;
  if (row.custom_id !== null) info.custom_field = row.custom_id;
  if (row.instrument === 'CARD') info.instrument_type = 'CREDIT_CARD';
  return info;
}
