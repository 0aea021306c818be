// What happens to an invoice after it is made: send (now or scheduled), remind, cancel, record
// and delete payments and refunds, and the scheduled-send job.

import { isoMillis, isoSeconds } from '../core/clock.js';
import type { ServerDeps, ServiceContext } from '../core/deps.js';
import { upperId } from '../core/ids.js';
import type { Queryable } from '../db/schema.js';
import { serviceError, type IssueCode } from '../http/errors.js';
import { link, type Link } from '../http/links.js';
import { MoneyParseError, fromMinorUnits, toMinorUnits } from '../../lib/money.js';
import { ownInvoice, recordInvoiceEvent, todayOf, type InvoiceEventType } from './invoices.js';
import { recordMessages, type MessageKind } from './outbox.js';
import { invoicePath, invoiceResource, payerViewUrl, statusOf, viewOf, type InvoiceView, type Transactions } from './resource.js';
import type { MoneyInput, NotificationInput, PaymentInput, RefundInput } from './schema.js';
import { assertCanPerform, assertCanTransition, settledStatus, type InvoiceStatus, type InvoiceTransition } from './states.js';
import * as store from './store.js';

// ---- e-mail ----

function invoicerName(view: InvoiceView): string {
  const invoicer = view.stored.input.invoicer;
  return invoicer?.business_name ?? invoicer?.name?.full_name ?? invoicer?.email_address ?? 'your supplier';
}

function recipientAddresses(view: InvoiceView, notification: NotificationInput): string[] {
  const to: string[] = [];
  if (notification.send_to_recipient !== false) {
    for (const recipient of view.stored.input.primary_recipients ?? []) {
      if (recipient.billing_info?.email_address) to.push(recipient.billing_info.email_address);
    }
    to.push(...(view.stored.input.additional_recipients ?? []));
  }
  to.push(...(notification.additional_recipients ?? []));
  return to;
}

async function notify(ctx: ServiceContext, view: InvoiceView, kind: MessageKind, notification: NotificationInput, subject: string): Promise<void> {
  const { row } = view;
  const amount = `${fromMinorUnits(row.total_minor, row.currency)} ${row.currency}`;
  const due = `${fromMinorUnits(row.total_minor - row.paid_minor > 0n ? row.total_minor - row.paid_minor : 0n, row.currency)} ${row.currency}`;
  const lines = [
    `Invoice ${row.invoice_number} from ${invoicerName(view)}`,
    `Total: ${amount}`,
    `Amount due: ${due}${row.due_date ? ` by ${row.due_date}` : ''}`,
    ...(notification.note ? ['', notification.note] : []),
    '',
    `View and pay: ${payerViewUrl(ctx.baseUrl, row.id)}`,
  ];
  const message = { invoiceId: row.id, subject: notification.subject ?? subject, body: lines.join('\n') };
  await recordMessages(ctx, { ...message, kind, to: recipientAddresses(view, notification) });
  const invoicerEmail = view.stored.input.invoicer?.email_address;
  if (notification.send_to_invoicer && invoicerEmail) {
    await recordMessages(ctx, { ...message, kind: 'INVOICER_COPY', to: [invoicerEmail] });
  }
}

// ---- status changes ----

async function saveAndReport(ctx: ServiceContext, row: store.InvoiceRow, event: InvoiceEventType | undefined, summary: string): Promise<InvoiceView> {
  await store.updateInvoice(ctx.db, row);
  const view = viewOf(row);
  if (event) await recordInvoiceEvent(ctx, event, invoiceResource(view, ctx.baseUrl), summary);
  return view;
}

function moveTo(row: store.InvoiceRow, operation: InvoiceTransition, status: InvoiceStatus, ctx: ServiceContext): store.InvoiceRow {
  assertCanTransition(operation, statusOf(row), status);
  return { ...row, status, update_time: isoMillis(ctx.now) };
}

export type SendResult = { status: 200; body: Link } | { status: 202; body: { links: Link[] } };

/** Marks a DRAFT or SCHEDULED invoice sent and records its e-mails. */
async function deliver(ctx: ServiceContext, row: store.InvoiceRow, notification: NotificationInput): Promise<void> {
  const sentTime = isoSeconds(ctx.now);
  const sent = { ...moveTo(row, 'send', 'SENT', ctx), first_sent_time: row.first_sent_time ?? sentTime, last_sent_time: sentTime };
  const view = await saveAndReport(ctx, sent, undefined, '');
  await notify(ctx, view, 'INVOICE', notification, `Invoice ${row.invoice_number} from ${invoicerName(view)}`);
}

export async function sendInvoice(ctx: ServiceContext, id: string, notification: NotificationInput): Promise<SendResult> {
  const row = await ownInvoice(ctx, id, { forUpdate: true });
  const status = statusOf(row);
  assertCanPerform('send', status);
  const self = link(ctx.baseUrl, invoicePath(id), 'self', 'GET');
  // Sending again has no effect: a scheduled invoice stays scheduled, a sent one stays as it is.
  if (status === 'SCHEDULED') return { status: 202, body: { links: [self] } };
  if (status !== 'DRAFT') return { status: 200, body: { href: payerViewUrl(ctx.baseUrl, id), rel: 'payer-view', method: 'GET' } };
  if (row.invoice_date > todayOf(ctx.now)) {
    const view = viewOf(row);
    const body = JSON.stringify({ ...view.stored, notification });
    const scheduled = { ...moveTo(row, 'send', 'SCHEDULED', ctx), body };
    await saveAndReport(ctx, scheduled, 'SCHEDULED', `An invoice ${row.invoice_number} was scheduled for ${row.invoice_date}.`);
    return { status: 202, body: { links: [self] } };
  }
  await deliver(ctx, row, notification);
  return { status: 200, body: { href: payerViewUrl(ctx.baseUrl, id), rel: 'payer-view', method: 'GET' } };
}

/**
 * Locks the invoice for this transaction if it is still SCHEDULED and due; false when it was sent
 * meanwhile or another transaction holds it (another server sending it).
 */
async function claimScheduledInvoice(trx: Queryable, accountId: string, id: string, today: string): Promise<boolean> {
  const row = await trx
    .selectFrom('invoices')
    .select('id')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('status', '=', 'SCHEDULED')
    .where('invoice_date', '<=', today)
    .forUpdate()
    .skipLocked()
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Sends every SCHEDULED invoice whose date has come on its account's clock, one per transaction
 * that claims it first: servers sending side by side send each once.
 */
export async function sendScheduledInvoices(deps: ServerDeps): Promise<number> {
  let sent = 0;
  for (const accountId of await store.accountsWithScheduledInvoices(deps.db)) {
    const today = todayOf(deps.clock.now(accountId));
    for (const due of await store.dueScheduledInvoices(deps.db, accountId, today)) {
      await deps.storage.transaction({ name: 'invoicing.scheduled-send' }, async (trx) => {
        const ctx: ServiceContext = { db: trx, deps, accountId, now: deps.clock.now(accountId), baseUrl: deps.publicUrl() };
        if (!(await claimScheduledInvoice(trx, accountId, due.id, today))) return;
        const row = await store.findInvoice(trx, accountId, due.id);
        if (!row || row.status !== 'SCHEDULED') return;
        await deliver(ctx, row, viewOf(row).stored.notification ?? {});
        sent += 1;
      });
    }
  }
  return sent;
}

export async function remindInvoice(ctx: ServiceContext, id: string, notification: NotificationInput): Promise<void> {
  const row = await ownInvoice(ctx, id, { forUpdate: true });
  assertCanPerform('remind', statusOf(row));
  const updated = { ...row, last_sent_time: isoSeconds(ctx.now), update_time: isoMillis(ctx.now) };
  const view = await saveAndReport(ctx, updated, undefined, '');
  await notify(ctx, view, 'REMINDER', notification, `Reminder: invoice ${row.invoice_number} from ${invoicerName(view)}`);
}

export async function cancelInvoice(ctx: ServiceContext, id: string, notification: NotificationInput): Promise<void> {
  const row = await ownInvoice(ctx, id, { forUpdate: true });
  assertCanPerform('cancel', statusOf(row));
  const cancelled = { ...moveTo(row, 'cancel', 'CANCELLED', ctx), cancel_time: isoSeconds(ctx.now) };
  const view = await saveAndReport(ctx, cancelled, 'CANCELLED', `An invoice ${row.invoice_number} was cancelled.`);
  await notify(ctx, view, 'CANCELLATION', notification, `Invoice ${row.invoice_number} was cancelled`);
}

// ---- payments and refunds ----

const recordingError = (issue: IssueCode, description: string, field: string, value?: string) =>
  serviceError('INVALID_REQUEST', issue, description, { field, ...(value === undefined ? {} : { value }), location: 'body' });

/** A recorded payment's or refund's amount: in the invoice currency, positive, exact. */
function recordedMinor(amount: MoneyInput, currency: string): bigint {
  if (amount.currency_code !== currency) {
    throw recordingError('NOT_SUPPORTED', `The amount must be in the invoice currency ${currency}.`, '/amount/currency_code', amount.currency_code);
  }
  let minor: bigint;
  try {
    minor = toMinorUnits(amount.value, currency);
  } catch (error) {
    if (!(error instanceof MoneyParseError)) throw error;
    const issue = error.issue === 'MAX_VALUE_EXCEEDED' ? 'INVALID_INTEGER_VALUE' : error.issue === 'INVALID_PARAMETER_SYNTAX' ? 'INVALID_PARAMETER_SYNTAX' : 'INVALID_DECIMAL_VALUE';
    throw recordingError(issue, error.message, '/amount/value', amount.value);
  }
  if (minor === 0n) throw recordingError('VALUE_CANNOT_BE_ZERO', 'The amount cannot be zero.', '/amount/value', amount.value);
  if (minor < 0n) throw recordingError('INVALID_PARAMETER_VALUE', 'The amount cannot be negative.', '/amount/value', amount.value);
  return minor;
}

const transactionId = (ctx: ServiceContext): string => `EXTR-${upperId(ctx.deps.ids, 16)}`;
const typeOf = (method: string): string => (method === 'PLATFORM' ? 'PLATFORM' : 'EXTERNAL');

function settle(row: store.InvoiceRow, operation: InvoiceTransition, transactions: Transactions, ctx: ServiceContext): store.InvoiceRow {
  const paid = transactions.payments.reduce((sum, payment) => sum + BigInt(payment.amount_minor), 0n);
  const refunded = transactions.refunds.reduce((sum, refund) => sum + BigInt(refund.amount_minor), 0n);
  const status = settledStatus({
    total: row.total_minor,
    paid,
    refunded,
    paymentsAllPlatform: transactions.payments.every((payment) => payment.type === 'PLATFORM'),
    refundsAllPlatform: transactions.refunds.every((refund) => refund.type === 'PLATFORM'),
  });
  return {
    ...moveTo(row, operation, status, ctx),
    paid_minor: paid,
    refunded_minor: refunded,
    transactions: JSON.stringify(transactions),
  };
}

export async function recordPayment(ctx: ServiceContext, id: string, input: PaymentInput): Promise<{ payment_id: string }> {
  const row = await ownInvoice(ctx, id, { forUpdate: true });
  assertCanPerform('record-payment', statusOf(row));
  const due = row.total_minor - row.paid_minor;
  const amount = input.amount === undefined ? due : recordedMinor(input.amount, row.currency);
  // A payer paying through the platform may add a tip when the invoice allows tips: what is paid
  // beyond the amount due is the tip (the invoice's gratuity). Other payments cannot exceed it.
  const tipsAllowed = input.method === 'PLATFORM' && viewOf(row).stored.input.configuration?.allow_tip === true;
  const tip = tipsAllowed && amount > due && due > 0n ? amount - due : 0n;
  if (amount - tip > due) {
    throw serviceError('UNPROCESSABLE_ENTITY', 'PAYMENT_AMOUNT_GREATER_THAN_AMOUNT_DUE', `The payment is more than the amount due (${fromMinorUnits(due, row.currency)} ${row.currency}).`, {
      field: '/amount/value',
      value: fromMinorUnits(amount, row.currency),
    });
  }
  if (amount <= 0n) throw serviceError('UNPROCESSABLE_ENTITY', 'CANNOT_PROCESS_PAYMENTS', 'Nothing is due on this invoice.');
  const transactions = viewOf(row).transactions;
  const paymentId = input.payment_id ?? transactionId(ctx);
  if (transactions.payments.some((payment) => payment.payment_id === paymentId)) {
    throw recordingError('INVALID_PARAMETER_VALUE', 'This invoice already has a payment with this id.', '/payment_id', paymentId);
  }
  transactions.payments.push({
    payment_id: paymentId,
    type: typeOf(input.method),
    method: input.method,
    payment_date: input.payment_date ?? todayOf(ctx.now),
    payment_date_time: isoSeconds(ctx.now),
    ...(input.note !== undefined ? { note: input.note } : {}),
    amount_minor: amount.toString(),
    ...(tip > 0n ? { gratuity_minor: tip.toString() } : {}),
    ...(input.shipping_info !== undefined ? { shipping_info: input.shipping_info as Record<string, unknown> } : {}),
  });
  const settled = settle(row, 'record-payment', transactions, ctx);
  await saveAndReport(ctx, settled, 'PAID', `A payment of ${fromMinorUnits(amount, row.currency)} ${row.currency} was recorded on invoice ${row.invoice_number}.`);
  return { payment_id: paymentId };
}

/** Takes the recorded payment (refund) with this id out of `list`; 404 naming the path's transaction_id when there is none. */
function removeRecorded<T>(list: T[], idOf: (entry: T) => string, id: string, what: 'payment' | 'refund'): T {
  const index = list.findIndex((entry) => idOf(entry) === id);
  if (index < 0) {
    throw serviceError('RESOURCE_NOT_FOUND', 'INVALID_RESOURCE_ID', `The invoice has no ${what} with this id.`, { field: 'transaction_id', value: id, location: 'path' });
  }
  return list.splice(index, 1)[0] as T;
}

export async function deletePayment(ctx: ServiceContext, id: string, transactionIdToDelete: string): Promise<void> {
  const row = await ownInvoice(ctx, id, { forUpdate: true });
  const transactions = viewOf(row).transactions;
  const removed = removeRecorded(transactions.payments, (payment) => payment.payment_id, transactionIdToDelete, 'payment');
  const remaining = row.paid_minor - BigInt(removed.amount_minor);
  if (remaining < row.refunded_minor) {
    throw serviceError('UNPROCESSABLE_ENTITY', 'CANNOT_DELETE_EXTERNAL_PAYMENT', 'The recorded refunds would exceed the payments left.', {
      field: 'transaction_id',
      value: transactionIdToDelete,
      location: 'path',
    });
  }
  await saveAndReport(ctx, settle(row, 'delete-payment', transactions, ctx), 'UPDATED', `A payment was deleted from invoice ${row.invoice_number}.`);
}

export async function recordRefund(ctx: ServiceContext, id: string, input: RefundInput): Promise<{ refund_id: string }> {
  const row = await ownInvoice(ctx, id, { forUpdate: true });
  assertCanPerform('record-refund', statusOf(row));
  const refundable = row.paid_minor - row.refunded_minor;
  const amount = input.amount === undefined ? refundable : recordedMinor(input.amount, row.currency);
  if (amount > refundable) {
    throw serviceError('UNPROCESSABLE_ENTITY', 'INVALID_REFUND_AMOUNT', `Refunds cannot exceed the payments: at most ${fromMinorUnits(refundable, row.currency)} ${row.currency} can be refunded.`, {
      field: '/amount/value',
      value: fromMinorUnits(amount, row.currency),
    });
  }
  if (amount <= 0n) throw serviceError('UNPROCESSABLE_ENTITY', 'CANNOT_PROCESS_REFUNDS', 'Nothing paid is left to refund.');
  const transactions = viewOf(row).transactions;
  const refundId = transactionId(ctx);
  transactions.refunds.push({
    refund_id: refundId,
    type: typeOf(input.method),
    method: input.method,
    refund_date: input.refund_date ?? todayOf(ctx.now),
    amount_minor: amount.toString(),
  });
  const settled = settle(row, 'record-refund', transactions, ctx);
  await saveAndReport(ctx, settled, 'REFUNDED', `A refund of ${fromMinorUnits(amount, row.currency)} ${row.currency} was recorded on invoice ${row.invoice_number}.`);
  return { refund_id: refundId };
}

export async function deleteRefund(ctx: ServiceContext, id: string, refundId: string): Promise<void> {
  const row = await ownInvoice(ctx, id, { forUpdate: true });
  const transactions = viewOf(row).transactions;
  removeRecorded(transactions.refunds, (refund) => refund.refund_id, refundId, 'refund');
  await saveAndReport(ctx, settle(row, 'delete-refund', transactions, ctx), 'UPDATED', `A refund was deleted from invoice ${row.invoice_number}.`);
}

/** Notifies recipients of an update to a sent invoice, as the PUT's query asks. */
export async function notifyUpdate(ctx: ServiceContext, id: string, options: { toRecipient: boolean; toInvoicer: boolean }): Promise<void> {
  const row = await ownInvoice(ctx, id);
  if (!['SENT', 'UNPAID', 'PARTIALLY_PAID'].includes(row.status)) return;
  await notify(ctx, viewOf(row), 'UPDATE', { send_to_recipient: options.toRecipient, send_to_invoicer: options.toInvoicer }, `Invoice ${row.invoice_number} was updated`);
}
