// How captures and refunds read at a terminal: the headline rows every command that shows one
// starts with (identity, status, money), so `get`, `capture` and `refund` print them alike.

import type { HistoryEntry } from '../api/orders.js';
import type { Capture, Refund } from '../api/payments.js';
import { formatDate, formatMoney, type DetailRow } from './format.js';

export function captureRows(capture: Capture): DetailRow[] {
  const breakdown = capture.seller_receivable_breakdown;
  return [
    ['Capture', capture.id],
    ['Status', capture.status, 'status'],
    ['Reason', capture.status_details?.reason],
    ['Amount', formatMoney(capture.amount)],
    ['Fee', formatMoney(breakdown?.paypal_fee)],
    ['Net', formatMoney(breakdown?.net_amount)],
  ];
}

export function refundRows(refund: Refund): DetailRow[] {
  const breakdown = refund.seller_payable_breakdown;
  return [
    ['Refund', refund.id],
    ['Status', refund.status, 'status'],
    ['Amount', formatMoney(refund.amount)],
    ['Fee returned', formatMoney(breakdown?.paypal_fee)],
    ['Net', formatMoney(breakdown?.net_amount)],
    ['Total refunded', formatMoney(breakdown?.total_refunded_amount)],
  ];
}

/** One row per step of a payment's history (captures of an authorization, refunds of a capture). */
export function historyRows(history: readonly HistoryEntry[]): DetailRow[] {
  return history.map((entry) => [
    'History',
    [formatDate(entry.time), entry.what, entry.status, formatMoney(entry.amount), entry.id].filter(Boolean).join('  '),
  ]);
}
