// Finds the capture a refund is for from the invoice id it was paid under, through the transaction
// search (the payments API cannot look a capture up by invoice id); refuses unless exactly one matches.

import type { ApiClient } from './api/client.js';
import { EXIT_CODES, PayctlError, type ErrorReport } from './api/errors.js';
import type { TransactionInfo } from './api/reporting.js';
import { searchPages, splitRange, type TimeRange } from './reporting.js';
import { formatDate, formatMoney } from './render/format.js';

const DAY_MS = 86_400_000;
/** The event code of a payment captured through checkout (orders and authorizations). */
const CAPTURE_EVENT_CODE = 'T0006';
/** The API's largest page. */
const LOOKUP_PAGE_SIZE = 500;

/**
 * Event codes of a payment received (T00xx) that is a capture: a positive amount in the T00 family.
 * Payouts (T0000 with a negative amount) and refunds or reversals (T11xx, T12xx) are not.
 */
export function isCapture(info: TransactionInfo): boolean {
  const code = info.transaction_event_code ?? '';
  const value = info.transaction_amount?.value ?? '';
  return /^T00\d\d$/.test(code) && value !== '' && !value.startsWith('-');
}

/** A capture as the search shows it: amount, date, invoice and custom ids, whether refunded in full. */
export function captureSummary(info: TransactionInfo): string {
  const parts = [
    formatMoney(info.transaction_amount),
    info.transaction_initiation_date ? `captured ${formatDate(info.transaction_initiation_date)}` : '',
    info.invoice_id ? `invoice ${info.invoice_id}` : '',
    info.custom_field ? `custom ${info.custom_field}` : '',
    info.transaction_status === 'V' ? 'refunded or reversed in full' : '',
  ];
  return parts.filter((part) => part !== '').join(', ');
}

/** A candidate in a refusal: its id, then its summary. */
export function describeCapture(info: TransactionInfo): string {
  return `${info.transaction_id ?? '?'} (${captureSummary(info)})`;
}

/** Not exactly one capture has the invoice id: exit 3 for none, 2 for several (name one by its id). */
export class CaptureLookupError extends PayctlError {
  constructor(
    readonly invoiceId: string,
    readonly candidates: readonly TransactionInfo[],
    readonly sinceDays: number,
  ) {
    super(
      candidates.length === 0
        ? `no capture with invoice id ${invoiceId} in the last ${sinceDays} days (widen the search with --since DAYS)`
        : `${candidates.length} captures have invoice id ${invoiceId}; refund one by its id (payctl payments refund CAPTURE_ID): ` +
            candidates.map(describeCapture).join('; '),
    );
    this.name = 'CaptureLookupError';
  }

  get errorName(): string {
    return this.candidates.length === 0 ? 'RESOURCE_NOT_FOUND' : 'AMBIGUOUS_INVOICE_ID';
  }

  get exitCode(): number {
    return this.candidates.length === 0 ? EXIT_CODES.notFound : EXIT_CODES.usage;
  }

  override report(): ErrorReport {
    const report = super.report();
    if (this.candidates.length > 0) {
      report.details = this.candidates.map((info) => ({
        field: 'invoice_id',
        value: this.invoiceId,
        issue: 'CAPTURE_CANDIDATE',
        description: describeCapture(info),
      }));
    }
    return report;
  }
}

export interface CaptureSearch {
  invoiceId: string;
  sinceDays: number;
  /** Now on the merchant's clock (the search's dates are on it), in ms. */
  nowMs: number;
  /** Called before each 31-day window is searched (for a progress line). */
  onWindow?: (index: number, count: number) => void;
}

/** The captures with this invoice id within the last `sinceDays` days, searched in 31-day windows. */
export async function capturesWithInvoiceId(client: ApiClient, search: CaptureSearch): Promise<TransactionInfo[]> {
  // Times are kept to the second; the range includes now.
  const toMs = Math.floor(search.nowMs / 1000) * 1000 + 1000;
  const range: TimeRange = { fromMs: toMs - search.sinceDays * DAY_MS, toMs };
  const windows = splitRange(range);
  const found = new Map<string, TransactionInfo>();
  // Only captures, in the largest pages the API gives: a busy account's 180 days take fewer requests.
  const query = { transaction_type: CAPTURE_EVENT_CODE, page_size: LOOKUP_PAGE_SIZE };
  const plan = { windows, query, all: true, ...(search.onWindow ? { onWindow: search.onWindow } : {}) };
  for await (const { page } of searchPages(client, plan)) {
    for (const detail of page.transaction_details) {
      const info = detail.transaction_info;
      if (info?.transaction_id && info.invoice_id === search.invoiceId && isCapture(info)) found.set(info.transaction_id, info);
    }
  }
  return [...found.values()];
}

/** The one capture with this invoice id, or a CaptureLookupError listing what matched. */
export async function findCaptureByInvoiceId(client: ApiClient, search: CaptureSearch): Promise<TransactionInfo> {
  const captures = await capturesWithInvoiceId(client, search);
  if (captures.length !== 1) throw new CaptureLookupError(search.invoiceId, captures, search.sinceDays);
  return captures[0] as TransactionInfo;
}
