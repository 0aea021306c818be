// Invoice statuses, which operation each allows, and the refusal (with its issue code) for the rest.

import { serviceError, type IssueCode } from '../http/errors.js';

export type InvoiceStatus =
  | 'DRAFT'
  | 'SENT'
  | 'SCHEDULED'
  | 'PAID'
  | 'MARKED_AS_PAID'
  | 'CANCELLED'
  | 'REFUNDED'
  | 'PARTIALLY_PAID'
  | 'PARTIALLY_REFUNDED'
  | 'MARKED_AS_REFUNDED'
  | 'UNPAID'
  | 'PAYMENT_PENDING';

export type InvoiceOperation = 'update' | 'delete' | 'send' | 'remind' | 'cancel' | 'record-payment' | 'record-refund' | 'qr-code';
/** What moves an invoice's status: the operations above, and deleting a recorded payment or refund. */
export type InvoiceTransition = InvoiceOperation | 'delete-payment' | 'delete-refund';

const PAID: readonly InvoiceStatus[] = ['PAID', 'MARKED_AS_PAID', 'PARTIALLY_PAID', 'PAYMENT_PENDING'];
const REFUNDED: readonly InvoiceStatus[] = ['REFUNDED', 'PARTIALLY_REFUNDED', 'MARKED_AS_REFUNDED'];

/** The statuses from which a status may be entered. */
export const TRANSITIONS: Record<InvoiceStatus, readonly InvoiceStatus[]> = {
  DRAFT: ['SENT', 'SCHEDULED'],
  SCHEDULED: ['SENT'],
  SENT: ['PARTIALLY_PAID', 'PAID', 'MARKED_AS_PAID', 'CANCELLED'],
  UNPAID: ['PARTIALLY_PAID', 'PAID', 'MARKED_AS_PAID', 'CANCELLED'],
  PARTIALLY_PAID: ['PARTIALLY_PAID', 'PAID', 'MARKED_AS_PAID', 'PARTIALLY_REFUNDED', 'REFUNDED', 'MARKED_AS_REFUNDED', 'UNPAID'],
  PAID: ['PARTIALLY_PAID', 'PARTIALLY_REFUNDED', 'REFUNDED', 'MARKED_AS_REFUNDED', 'UNPAID'],
  MARKED_AS_PAID: ['PARTIALLY_PAID', 'PARTIALLY_REFUNDED', 'REFUNDED', 'MARKED_AS_REFUNDED', 'UNPAID'],
  PARTIALLY_REFUNDED: ['PARTIALLY_REFUNDED', 'REFUNDED', 'MARKED_AS_REFUNDED', 'PARTIALLY_PAID', 'PAID', 'MARKED_AS_PAID'],
  REFUNDED: ['PARTIALLY_REFUNDED', 'PARTIALLY_PAID', 'PAID', 'MARKED_AS_PAID'],
  MARKED_AS_REFUNDED: ['PARTIALLY_REFUNDED', 'PARTIALLY_PAID', 'PAID', 'MARKED_AS_PAID'],
  PAYMENT_PENDING: ['PAID', 'PARTIALLY_PAID'],
  CANCELLED: [],
};

/** Which statuses each operation accepts. */
export const ALLOWED: Record<InvoiceOperation, readonly InvoiceStatus[]> = {
  update: ['DRAFT', 'SCHEDULED', 'SENT', 'UNPAID'],
  delete: ['DRAFT', 'SCHEDULED'],
  send: ['DRAFT', 'SCHEDULED', 'SENT', 'UNPAID', 'PARTIALLY_PAID', 'PAID', 'MARKED_AS_PAID', 'PARTIALLY_REFUNDED', 'REFUNDED', 'MARKED_AS_REFUNDED', 'PAYMENT_PENDING'],
  remind: ['SENT', 'UNPAID', 'PARTIALLY_PAID'],
  cancel: ['SENT', 'UNPAID'],
  'record-payment': ['SENT', 'UNPAID', 'PARTIALLY_PAID'],
  'record-refund': ['PAID', 'MARKED_AS_PAID', 'PARTIALLY_PAID', 'PARTIALLY_REFUNDED'],
  'qr-code': ['SENT', 'UNPAID', 'PARTIALLY_PAID', 'PAID', 'MARKED_AS_PAID', 'PARTIALLY_REFUNDED', 'REFUNDED', 'MARKED_AS_REFUNDED', 'PAYMENT_PENDING'],
};

function cancelIssue(status: InvoiceStatus): IssueCode {
  if (status === 'DRAFT') return 'CANNOT_CANCEL_DRAFT_INVOICE';
  if (status === 'SCHEDULED') return 'CANNOT_CANCEL_SCHEDULED_INVOICE';
  if (status === 'CANCELLED') return 'INVOICE_CANCELED_ALREADY';
  if (REFUNDED.includes(status)) return 'CANNOT_CANCEL_REFUNDED_INVOICE';
  if (PAID.includes(status)) return 'CANNOT_CANCEL_PAID_INVOICE';
  return 'CANNOT_CANCEL_INVOICE';
}

const ISSUES: Record<InvoiceOperation, (status: InvoiceStatus) => IssueCode> = {
  update: () => 'CANNOT_UPDATE_INVOICE',
  delete: () => 'CANNOT_DELETE_INVOICE',
  send: (status) => (status === 'CANCELLED' ? 'INVOICE_CANCELED_ALREADY' : 'CANNOT_SEND_INVOICE'),
  remind: () => 'CANNOT_REMIND_INVOICE',
  cancel: cancelIssue,
  'record-payment': () => 'CANNOT_PROCESS_PAYMENTS',
  'record-refund': () => 'CANNOT_PROCESS_REFUNDS',
  'qr-code': () => 'INVOICE_NOT_SENT',
};

export function canPerform(operation: InvoiceOperation, status: InvoiceStatus): boolean {
  return ALLOWED[operation].includes(status);
}

/** Throws the API's 422 for `operation` on an invoice in `status`, naming what was allowed. */
export function assertCanPerform(operation: InvoiceOperation, status: InvoiceStatus): void {
  if (canPerform(operation, status)) return;
  throw serviceError(
    'UNPROCESSABLE_ENTITY',
    ISSUES[operation](status),
    `Cannot ${operation.replace('-', ' ')} an invoice in status ${status}; allowed in ${ALLOWED[operation].join(', ')}.`,
    { field: '/status', value: status },
  );
}

/** Throws the API's refusal unless `operation` may move an invoice from `from` to `to`. */
export function assertCanTransition(operation: InvoiceTransition, from: InvoiceStatus, to: InvoiceStatus): void {
  if (from === to || TRANSITIONS[from].includes(to)) return;
  throw serviceError('UNPROCESSABLE_ENTITY', 'INVALID_STATUS_TRANSITION', `Cannot ${operation.replace('-', ' ')}: an invoice cannot go from ${from} to ${to}.`, {
    field: '/status',
    value: from,
  });
}

export interface Settlement {
  total: bigint;
  paid: bigint;
  refunded: bigint;
  /**
   * Whether every payment (refund) went through the platform (method PLATFORM). Only then is the
   * invoice PAID (REFUNDED): as soon as the invoicer recorded part of it themselves, it is marked
   * (MARKED_AS_PAID, MARKED_AS_REFUNDED), as the public API marks what it did not move itself.
   */
  paymentsAllPlatform: boolean;
  refundsAllPlatform: boolean;
}

/** The status that recorded payments and refunds put a sent invoice in. */
export function settledStatus(s: Settlement): InvoiceStatus {
  if (s.refunded > 0n) {
    if (s.refunded < s.paid) return 'PARTIALLY_REFUNDED';
    return s.refundsAllPlatform ? 'REFUNDED' : 'MARKED_AS_REFUNDED';
  }
  if (s.paid === 0n) return 'UNPAID';
  if (s.paid < s.total) return 'PARTIALLY_PAID';
  return s.paymentsAllPlatform ? 'PAID' : 'MARKED_AS_PAID';
}
