// One refund of a capture from `payments refund`'s flags: the request to send, and what a person
// confirming it is shown. The server alone decides what is left to refund.

import type { ApiClient } from './api/client.js';
import { getCapture, type Capture, type RefundRequest } from './api/payments.js';
import type { TransactionInfo } from './api/reporting.js';
import { captureSummary } from './find-capture.js';
import { moneyFromFlags } from './flags.js';
import { formatDate, formatMoney } from './render/format.js';

export interface RefundFlags {
  amount?: string | undefined;
  currency?: string | undefined;
  note?: string | undefined;
  'invoice-id'?: string | undefined;
  'custom-id'?: string | undefined;
}

export interface PreparedRefund {
  body: RefundRequest;
  /** What is refunded, for the confirmation: the amount, or "what is left". */
  what: string;
  /** The capture as the confirmation shows it; '' when nothing was read. */
  capture: string;
}

/** What a refund is of before anything is read: the --amount as typed, or what is left. */
export function refundWhat(flags: RefundFlags): string {
  return flags.amount ? flags.amount : 'what is left';
}

/**
 * The refund to send for `captureId`. The capture is read at most once: when a person will confirm
 * (`confirming`), to show it, or for the currency of an --amount without --currency. `found` is the
 * capture as the transaction search found it (--invoice-id without a capture id): it is shown
 * instead, gives the currency, and --invoice-id then named the capture's invoice, not the refund's.
 */
export async function prepareRefund(
  client: ApiClient,
  captureId: string,
  flags: RefundFlags,
  options: { confirming: boolean; found?: TransactionInfo | undefined },
): Promise<PreparedRefund> {
  const { found } = options;
  const body: RefundRequest = {};
  if (flags.note) body.note_to_payer = flags.note;
  if (flags['invoice-id'] && !found) body.invoice_id = flags['invoice-id'];
  if (flags['custom-id']) body.custom_id = flags['custom-id'];
  let read = options.confirming && !found ? await getCapture(client, captureId) : undefined;
  if (flags.amount) {
    let currency = flags.currency ?? found?.transaction_amount?.currency_code;
    if (currency === undefined) {
      read ??= await getCapture(client, captureId);
      currency = read.amount?.currency_code ?? 'USD';
    }
    body.amount = moneyFromFlags(flags.amount, currency);
  }
  const capture = found ? captureSummary(found) : read && options.confirming ? describeCapture(read) : '';
  return { body, what: body.amount ? formatMoney(body.amount) : refundWhat(flags), capture };
}

function describeCapture(capture: Capture): string {
  const parts = [formatMoney(capture.amount), `captured ${formatDate(capture.create_time)}`, capture.status];
  if (capture.invoice_id) parts.push(`invoice ${capture.invoice_id}`);
  return parts.filter((part) => part !== '').join(', ');
}
