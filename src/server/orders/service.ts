// Checkout orders: create, approve (as the payer), then authorize or capture.

import { toMinorUnits } from '../../lib/money.js';
import { isoSeconds } from '../core/clock.js';
import type { ServiceContext } from '../core/deps.js';
import { transactionId } from '../core/ids.js';
import { lockAccount } from '../db/account-lock.js';
import type { ReadOptions } from '../db/prepared.js';
import { notFound, serviceError } from '../http/errors.js';
import { parseWith } from '../http/validation.js';
import { writeOrderEvent } from './events.js';
import { parseOrderDetails, presentOrder, type Order, type OrderDetails } from './present.js';
import { applyOrderPatch, checkPatched, type PatchableOrder } from './patch.js';
import { createOrderSchema, type ConfirmOrderBody, type CreateOrderBody, type OrderActionBody, type PatchRequest, type PaymentSourceInput } from './schema.js';
import { assertCanTransition, assertCanUpdate, orderStatusOf, type OrderStatus } from './states.js';
import * as store from './store.js';
import { checkUnit, checkUnitSet, type StoredUnit } from './units.js';

type Payee = { email_address: string; merchant_id: string };

async function payeeOf(ctx: ServiceContext): Promise<Payee> {
  if (ctx.account) return { email_address: ctx.account.email, merchant_id: ctx.accountId };
  const account = await ctx.deps.domains.oauth.findAccount(ctx.db, ctx.accountId);
  if (!account) throw notFound('payer', ctx.accountId);
  return { email_address: account.email, merchant_id: account.id };
}

/** The merchant named as payee must be the caller (funds go to the account that creates the order). */
function checkPayee(body: CreateOrderBody, payee: Payee): void {
  body.purchase_units.forEach((unit, index) => {
    const named = unit.payee;
    if (!named) return;
    const wrongId = named.merchant_id !== undefined && named.merchant_id !== payee.merchant_id;
    const wrongEmail = named.email_address !== undefined && named.email_address.toLowerCase() !== payee.email_address.toLowerCase();
    if (wrongId || wrongEmail) {
      throw serviceError('UNPROCESSABLE_ENTITY', 'PAYEE_ACCOUNT_INVALID', 'The payee must be the merchant creating the order.', {
        field: `/purchase_units/${index}/payee`,
      });
    }
  });
}

/** What is kept of a payment source: never the full card number or security code. */
function maskedSource(source: PaymentSourceInput): Record<string, Record<string, unknown>> {
  const [kind, value] = Object.entries(source)[0] ?? ['unknown', {}];
  if (kind !== 'card' || !source.card) return { [kind]: { ...(value as Record<string, unknown>) } };
  const number = source.card.number;
  const brand = number.startsWith('4') ? 'VISA' : /^5[1-5]/.test(number) ? 'MASTERCARD' : /^3[47]/.test(number) ? 'AMEX' : 'UNKNOWN';
  const card: Record<string, unknown> = { last_digits: number.slice(-4), brand, type: 'CREDIT', expiry: source.card.expiry };
  if (source.card.name) card.name = source.card.name;
  return { card };
}

/**
 * The sandbox processor's checks of a card: the address matches when the payer gave a billing
 * address (Y), else it was not checked (U, unavailable); the security code matches when given (M),
 * else it was not processed (P).
 */
function cardChecks(source: PaymentSourceInput | undefined): OrderDetails['card_checks'] {
  if (!source?.card) return undefined;
  return { avs_code: source.card.billing_address ? 'Y' : 'U', cvv_code: source.card.security_code ? 'M' : 'P' };
}

function initialStatus(source: PaymentSourceInput | undefined): OrderStatus {
  if (!source) return 'CREATED';
  return source.card ? 'APPROVED' : 'PAYER_ACTION_REQUIRED';
}

/** The creation rules for the whole order: intent, unit set, payee, each unit's amounts. */
async function checkedUnits(ctx: ServiceContext, body: CreateOrderBody) {
  if (body.intent === 'AUTHORIZE' && body.purchase_units.length > 1) {
    throw serviceError('UNPROCESSABLE_ENTITY', 'UNSUPPORTED_INTENT', 'An AUTHORIZE order takes exactly one purchase unit.', {
      field: '/purchase_units',
    });
  }
  checkUnitSet(body.purchase_units);
  const payee = await payeeOf(ctx);
  checkPayee(body, payee);
  return body.purchase_units.map((unit, index) => checkUnit(unit, index, payee));
}

export async function createOrder(ctx: ServiceContext, body: CreateOrderBody): Promise<Order> {
  const checked = await checkedUnits(ctx, body);
  const details: OrderDetails = { purchase_units: checked.map((unit) => unit.unit) };
  if (body.payment_source) details.payment_source = maskedSource(body.payment_source);
  const checks = cardChecks(body.payment_source);
  if (checks) details.card_checks = checks;
  if (body.payer) details.payer = body.payer;
  if (body.processing_instruction) details.processing_instruction = body.processing_instruction;
  const now = isoSeconds(ctx.now);
  const row: store.OrderRow = {
    id: transactionId(ctx.deps.ids),
    account_id: ctx.accountId,
    intent: body.intent,
    status: initialStatus(body.payment_source),
    currency: body.purchase_units[0]?.amount.currency_code ?? 'USD',
    amount_minor: checked.reduce((sum, unit) => sum + unit.amountMinor, 0n),
    details: JSON.stringify(details),
    create_time: now,
    update_time: now,
  };
  await store.insertOrder(ctx.db, row);
  const resource = await presentOrder(ctx, row);
  if (row.status === 'APPROVED') await writeOrderEvent(ctx, 'CHECKOUT.ORDER.APPROVED', resource);
  return resource;
}

/**
 * The order. For a change, `forUpdate`: locked until the transaction ends, so that two requests
 * (under different request ids, or from two replicas) cannot both act on the status they read.
 */
async function loadOrder(ctx: ServiceContext, id: string, options: ReadOptions = {}): Promise<store.OrderRow> {
  const row = await store.findOrder(ctx.db, ctx.accountId, id, options);
  if (!row) throw notFound('order', id);
  return row;
}

export async function getOrder(ctx: ServiceContext, id: string): Promise<Order> {
  return presentOrder(ctx, await loadOrder(ctx, id));
}

/**
 * Applies a JSON Patch to an order that is not yet completed. The patched order must pass every
 * creation rule again (a new amount must agree with its breakdown and items), or nothing changes.
 */
export async function patchOrder(ctx: ServiceContext, id: string, operations: PatchRequest): Promise<void> {
  const row = await loadOrder(ctx, id, { forUpdate: true });
  assertCanUpdate(orderStatusOf(row.status));
  const details = parseOrderDetails(row);
  const current: PatchableOrder = { intent: row.intent, purchase_units: details.purchase_units };
  if (details.payer) current.payer = details.payer;
  if (details.application_context) current.application_context = details.application_context;
  const targets: string[] = [];
  const patched = applyOrderPatch(current, operations, targets);
  // The creation rules name fields of the order: the answer names them in the operations sent.
  const { body, checked } = await checkPatched(targets, async () => {
    const parsed = parseWith(createOrderSchema, patched, 'body');
    return { body: parsed, checked: await checkedUnits(ctx, parsed) };
  });
  const next: OrderDetails = { ...details, purchase_units: checked.map((unit) => unit.unit) };
  if (body.payer) next.payer = body.payer;
  else delete next.payer;
  if (body.application_context) next.application_context = body.application_context;
  await store.updateOrder(ctx.db, ctx.accountId, id, {
    intent: body.intent,
    currency: body.purchase_units[0]?.amount.currency_code ?? row.currency,
    amount_minor: checked.reduce((sum, unit) => sum + unit.amountMinor, 0n),
    details: JSON.stringify(next),
    update_time: isoSeconds(ctx.now),
  });
}

/** A card past its expiry month (on the account's clock) cannot pay. */
function checkCardExpiry(ctx: ServiceContext, source: PaymentSourceInput): void {
  const expiry = source.card?.expiry;
  if (expiry !== undefined && expiry < isoSeconds(ctx.now).slice(0, 7)) {
    throw serviceError('UNPROCESSABLE_ENTITY', 'CARD_EXPIRED', 'The card has expired.', { field: '/payment_source/card/expiry', value: expiry });
  }
}

/**
 * The payer confirms how they will pay: a card approves the order at once; a wallet or bank
 * method waits for the payer at the payer-action link.
 */
export async function confirmOrder(ctx: ServiceContext, id: string, body: ConfirmOrderBody): Promise<Order> {
  const row = await loadOrder(ctx, id, { forUpdate: true });
  const status = orderStatusOf(row.status);
  const target: OrderStatus = body.payment_source.card ? 'APPROVED' : 'PAYER_ACTION_REQUIRED';
  // Choosing another wallet while the payer has yet to act keeps the order where it is.
  if (!(status === 'PAYER_ACTION_REQUIRED' && target === status)) assertCanTransition('confirm', status, target);
  checkCardExpiry(ctx, body.payment_source);
  const details = parseOrderDetails(row);
  details.payment_source = maskedSource(body.payment_source);
  if (body.processing_instruction) details.processing_instruction = body.processing_instruction;
  const moved = await moveOrder(ctx, row, target, details);
  const resource = await presentOrder(ctx, moved);
  if (target === 'APPROVED') await writeOrderEvent(ctx, 'CHECKOUT.ORDER.APPROVED', resource);
  return resource;
}

async function moveOrder(ctx: ServiceContext, row: store.OrderRow, status: OrderStatus, details?: OrderDetails): Promise<store.OrderRow> {
  const changes = {
    status,
    update_time: isoSeconds(ctx.now),
    ...(details ? { details: JSON.stringify(details) } : {}),
  };
  await store.updateOrder(ctx.db, ctx.accountId, row.id, changes);
  return { ...row, ...changes };
}

/** The payer's approval (control plane or the approve page). Approving twice changes nothing. */
export async function approveOrder(ctx: ServiceContext, id: string, source?: PaymentSourceInput): Promise<Order> {
  const row = await loadOrder(ctx, id, { forUpdate: true });
  const status = orderStatusOf(row.status);
  if (status === 'APPROVED') return presentOrder(ctx, row);
  assertCanTransition('approve', status, 'APPROVED');
  const details = parseOrderDetails(row);
  if (source) details.payment_source = maskedSource(source);
  else details.payment_source ??= { paypal: { account_status: 'VERIFIED' } };
  const checks = cardChecks(source);
  if (checks) details.card_checks = checks;
  else if (source) delete details.card_checks;
  const approved = await moveOrder(ctx, row, 'APPROVED', details);
  const resource = await presentOrder(ctx, approved);
  await writeOrderEvent(ctx, 'CHECKOUT.ORDER.APPROVED', resource);
  return resource;
}

/** Loads an order for authorize/capture: intent must match; a card given now counts as approval. */
async function orderReadyFor(ctx: ServiceContext, id: string, action: 'authorize' | 'capture', body: OrderActionBody) {
  // The account first (the lock order): the units' invoice_ids are checked unused across the
  // account's payments, then inserted. No statement at all on SQLite.
  await lockAccount(ctx.db, ctx.accountId);
  let row = await loadOrder(ctx, id, { forUpdate: true });
  if (row.intent !== (action === 'authorize' ? 'AUTHORIZE' : 'CAPTURE')) {
    throw serviceError(
      'UNPROCESSABLE_ENTITY',
      'ACTION_DOES_NOT_MATCH_INTENT',
      `The order's intent is ${row.intent}; ${row.intent === 'AUTHORIZE' ? 'authorize' : 'capture'} it instead.`,
    );
  }
  const status = orderStatusOf(row.status);
  if (body.payment_source?.card && status !== 'APPROVED' && status !== 'COMPLETED' && status !== 'VOIDED') {
    await approveOrder(ctx, id, body.payment_source);
    row = await loadOrder(ctx, id, { forUpdate: true });
  }
  assertCanTransition(action, orderStatusOf(row.status), 'COMPLETED');
  return { row, details: parseOrderDetails(row) };
}

function duplicateInvoice(unit: StoredUnit, index: number) {
  return serviceError('UNPROCESSABLE_ENTITY', 'DUPLICATE_INVOICE_ID', 'This invoice_id was already used for a payment.', {
    field: `/purchase_units/${index}/invoice_id`,
    value: unit.invoice_id,
  });
}

/** Authorizes an approved AUTHORIZE order: one authorization, order COMPLETED. */
export async function authorizeOrder(ctx: ServiceContext, id: string, body: OrderActionBody, options: { pendingReview?: boolean } = {}) {
  const { row, details } = await orderReadyFor(ctx, id, 'authorize', body);
  const unit = details.purchase_units[0];
  if (!unit) throw new Error(`order ${row.id} has no purchase unit`);
  if (unit.invoice_id !== undefined && (await ctx.deps.domains.payments.invoiceIdUsed(ctx, 'authorization', unit.invoice_id))) {
    throw duplicateInvoice(unit, 0);
  }
  await ctx.deps.domains.payments.createAuthorization(ctx, {
    orderId: row.id,
    referenceId: unit.reference_id,
    currency: row.currency,
    amountMinor: row.amount_minor,
    ...(unit.amount.breakdown ? { breakdown: unit.amount.breakdown } : {}),
    invoiceId: unit.invoice_id,
    customId: unit.custom_id,
    softDescriptor: unit.soft_descriptor,
    payee: unit.payee,
    status: options.pendingReview ? 'PENDING' : 'CREATED',
    cardChecks: details.card_checks,
  });
  return completeOrder(ctx, row);
}

/** Captures an approved CAPTURE order: one capture per purchase unit, order COMPLETED. */
export async function captureOrder(ctx: ServiceContext, id: string, body: OrderActionBody) {
  const { row, details } = await orderReadyFor(ctx, id, 'capture', body);
  const held = await ctx.deps.domains.payments.capturesHeldForVerification(ctx);
  for (const [index, unit] of details.purchase_units.entries()) {
    if (unit.invoice_id !== undefined && (await ctx.deps.domains.payments.invoiceIdUsed(ctx, 'capture', unit.invoice_id))) {
      throw duplicateInvoice(unit, index);
    }
    await ctx.deps.domains.payments.recordCapture(ctx, {
      orderId: row.id,
      referenceId: unit.reference_id,
      authorizationId: null,
      currency: unit.amount.currency_code,
      amountMinor: toMinorUnits(unit.amount.value, unit.amount.currency_code),
      ...(unit.amount.breakdown ? { breakdown: unit.amount.breakdown } : {}),
      status: held ? 'PENDING' : 'COMPLETED',
      finalCapture: true,
      invoiceId: unit.invoice_id,
      customId: unit.custom_id,
      softDescriptor: unit.soft_descriptor,
      payee: unit.payee,
      cardChecks: details.card_checks,
    });
  }
  return completeOrder(ctx, row);
}

async function completeOrder(ctx: ServiceContext, row: store.OrderRow): Promise<Order> {
  const completed = await moveOrder(ctx, row, 'COMPLETED');
  const resource = await presentOrder(ctx, completed);
  await writeOrderEvent(ctx, 'CHECKOUT.ORDER.COMPLETED', resource);
  return resource;
}
