// Authorizations: created by orders, then captured (in parts), voided, reauthorized or expired.

import { fromMinorUnits, type Money } from '../../lib/money.js';
import { addSeconds, isoSeconds } from '../core/clock.js';
import type { ServiceContext } from '../core/deps.js';
import { transactionId } from '../core/ids.js';
import { lockAccount } from '../db/account-lock.js';
import type { ReadOptions } from '../db/prepared.js';
import { notFound, serviceError } from '../http/errors.js';
import { amountInCurrencyOf, checkBreakdown } from './amounts.js';
import { capturesHeldForVerification, recordCapture } from './captures.js';
import { writePaymentEvent } from './events.js';
import { authorizationAt, presentAuthorization, authorizationDetailsSchema, type AuthorizationDetails, type Authorization, type Capture, type CardChecks } from './present.js';
import type { CaptureBody, ReauthorizeBody } from './schema.js';
import {
  OPEN_AUTHORIZATION_STATUSES,
  assertCanTransition,
  authorizationStatusOf,
  type AuthorizationStatus,
} from './states.js';
import * as store from './store.js';

const DAY = 86_400;
/** An authorization can be captured for 29 days; the first 3 are its honour period. */
export const AUTHORIZATION_PERIOD_SECONDS = 29 * DAY;
export const HONOR_PERIOD_SECONDS = 3 * DAY;

export interface NewAuthorization {
  orderId: string;
  referenceId: string;
  currency: string;
  amountMinor: bigint;
  breakdown?: Record<string, Money>;
  invoiceId?: string | undefined;
  customId?: string | undefined;
  softDescriptor?: string | undefined;
  payee: { email_address: string; merchant_id: string };
  /** PENDING holds the authorization for review (status_details.reason PENDING_REVIEW). */
  status: 'CREATED' | 'PENDING';
  /** The order was paid by card: its captures carry a processor_response. */
  cardChecks?: CardChecks | undefined;
}

/** Creates an authorization and raises PAYMENT.AUTHORIZATION.CREATED. */
export async function createAuthorization(ctx: ServiceContext, input: NewAuthorization): Promise<Authorization> {
  const now = isoSeconds(ctx.now);
  const details: AuthorizationDetails = {
    payee: input.payee,
    ...(input.breakdown ? { breakdown: input.breakdown } : {}),
    ...(input.softDescriptor !== undefined ? { soft_descriptor: input.softDescriptor } : {}),
    ...(input.cardChecks ? { card_checks: input.cardChecks } : {}),
  };
  const row: store.AuthorizationRow = {
    id: transactionId(ctx.deps.ids),
    account_id: ctx.accountId,
    order_id: input.orderId,
    reference_id: input.referenceId,
    status: input.status,
    status_reason: input.status === 'PENDING' ? 'PENDING_REVIEW' : null,
    currency: input.currency,
    amount_minor: input.amountMinor,
    captured_minor: 0n,
    capture_count: 0n,
    invoice_id: input.invoiceId ?? null,
    custom_id: input.customId ?? null,
    original_id: null,
    reauthorization_id: null,
    expiration_time: isoSeconds(addSeconds(ctx.now, AUTHORIZATION_PERIOD_SECONDS)),
    honor_expiration_time: isoSeconds(addSeconds(ctx.now, HONOR_PERIOD_SECONDS)),
    details: JSON.stringify(details),
    create_time: now,
    update_time: now,
  };
  await store.insertAuthorization(ctx.db, row);
  const resource = presentAuthorization(row, ctx.baseUrl, now);
  await writePaymentEvent(ctx, 'PAYMENT.AUTHORIZATION.CREATED', resource);
  return resource;
}

/**
 * The authorization. For a change, `forUpdate`: locked until the transaction ends, so its checks
 * hold when it is written, and as it stands now (authorizationAt): one past its expiration time is
 * VOIDED (EXPIRED) even before the expiry job has written it, and every change of it is refused as
 * for a voided one.
 */
async function loadAuthorization(ctx: ServiceContext, id: string, options: ReadOptions = {}): Promise<store.AuthorizationRow> {
  const row = await store.findAuthorization(ctx.db, ctx.accountId, id, options);
  if (!row) throw notFound('authorization', id);
  return options.forUpdate ? authorizationAt(row, isoSeconds(ctx.now)) : row;
}

export async function getAuthorization(ctx: ServiceContext, id: string): Promise<Authorization> {
  return presentAuthorization(await loadAuthorization(ctx, id), ctx.baseUrl, isoSeconds(ctx.now));
}

/** Refuses acting on an authorization that has expired (rows as authorizationAt gives them). */
function assertNotExpired(row: store.AuthorizationRow): void {
  if (row.status === 'VOIDED' && row.status_reason === 'EXPIRED') {
    throw serviceError('UNPROCESSABLE_ENTITY', 'AUTHORIZATION_EXPIRED', `The authorization expired at ${row.expiration_time}.`);
  }
}

/**
 * Moves an authorization to VOIDED and raises PAYMENT.AUTHORIZATION.VOIDED. Voided on expiry, it is
 * written as reads showed it before (authorizationAt: update_time from its expiration time).
 */
async function markVoided(ctx: ServiceContext, row: store.AuthorizationRow, reason: 'EXPIRED' | null): Promise<Authorization> {
  const now = isoSeconds(ctx.now);
  const voided = reason === 'EXPIRED' ? authorizationAt(row, now) : { status: 'VOIDED', status_reason: null, update_time: now };
  const changes = { status: voided.status, status_reason: voided.status_reason, update_time: voided.update_time } satisfies Partial<store.AuthorizationRow>;
  await store.updateAuthorization(ctx.db, ctx.accountId, row.id, changes);
  const resource = presentAuthorization({ ...row, ...changes }, ctx.baseUrl, now);
  await writePaymentEvent(ctx, 'PAYMENT.AUTHORIZATION.VOIDED', resource);
  return resource;
}

interface CaptureRequest {
  amountMinor: bigint;
  breakdown: Record<string, Money> | undefined;
}

function requestedCapture(row: store.AuthorizationRow, body: CaptureBody): CaptureRequest {
  if (!body.amount) return { amountMinor: row.amount_minor - row.captured_minor, breakdown: undefined };
  const amountMinor = amountInCurrencyOf(body.amount, row.currency, {
    issue: 'AUTH_CAPTURE_CURRENCY_MISMATCH',
    description: `The capture must be in the authorization's currency (${row.currency}).`,
  });
  checkBreakdown(body.amount, '/amount', amountMinor);
  return { amountMinor, breakdown: body.amount.breakdown as Record<string, Money> | undefined };
}

async function assertCapturable(ctx: ServiceContext, row: store.AuthorizationRow, body: CaptureBody, amountMinor: bigint): Promise<void> {
  if (body.invoice_id !== undefined && (await store.captureInvoiceUsed(ctx.db, ctx.accountId, body.invoice_id))) {
    throw serviceError('UNPROCESSABLE_ENTITY', 'DUPLICATE_INVOICE_ID', 'A capture with this invoice_id already exists.', {
      field: '/invoice_id',
      value: body.invoice_id,
    });
  }
  // Declined captures do not count.
  const maxCaptures = BigInt(ctx.deps.config.maxCapturesPerAuthorization);
  if (row.capture_count >= maxCaptures) {
    throw serviceError('UNPROCESSABLE_ENTITY', 'MAX_CAPTURE_COUNT_EXCEEDED', `An authorization accepts at most ${maxCaptures} captures.`);
  }
  const percent = BigInt(ctx.deps.config.overCapturePercent);
  if ((row.captured_minor + amountMinor) * 100n > row.amount_minor * percent) {
    const limit = (row.amount_minor * percent) / 100n;
    throw serviceError(
      'UNPROCESSABLE_ENTITY',
      'MAX_CAPTURE_AMOUNT_EXCEEDED',
      `Captures may total at most ${fromMinorUnits(limit, row.currency)} ${row.currency} (${percent}% of the authorization); ` +
        `${fromMinorUnits(row.captured_minor, row.currency)} is already captured.`,
      { field: '/amount/value', value: fromMinorUnits(amountMinor, row.currency) },
    );
  }
}

/**
 * Captures all or part of an authorization. `declined` (simulated INSTRUMENT_DECLINED) records a
 * DECLINED capture that takes nothing from the authorization.
 */
export async function captureAuthorization(
  ctx: ServiceContext,
  id: string,
  body: CaptureBody,
  options: { declined?: boolean } = {},
): Promise<Capture> {
  // A new invoice_id is checked unused across the account's captures: first in the lock order.
  if (body.invoice_id !== undefined) await lockAccount(ctx.db, ctx.accountId);
  const row = await loadAuthorization(ctx, id, { forUpdate: true });
  const status = authorizationStatusOf(row.status);
  assertNotExpired(row);
  assertCanTransition('capture', status, 'CAPTURED');
  if (row.reauthorization_id !== null) {
    throw serviceError(
      'UNPROCESSABLE_ENTITY',
      'TRANSACTION_REFUSED',
      `This authorization was reauthorized; capture the reauthorization ${row.reauthorization_id} instead.`,
    );
  }
  const { amountMinor, breakdown } = requestedCapture(row, body);
  await assertCapturable(ctx, row, body, amountMinor);
  const capturedAfter = row.captured_minor + amountMinor;
  const target: AuthorizationStatus = body.final_capture === true || capturedAfter >= row.amount_minor ? 'CAPTURED' : 'PARTIALLY_CAPTURED';
  assertCanTransition('capture', status, target);
  const details = authorizationDetailsSchema.parse(JSON.parse(row.details));
  const held = await capturesHeldForVerification(ctx);
  const { resource } = await recordCapture(ctx, {
    orderId: row.order_id,
    referenceId: row.reference_id,
    authorizationId: row.id,
    currency: row.currency,
    amountMinor,
    ...(breakdown ? { breakdown } : {}),
    status: options.declined ? 'DECLINED' : held ? 'PENDING' : 'COMPLETED',
    finalCapture: body.final_capture ?? target === 'CAPTURED',
    invoiceId: body.invoice_id ?? row.invoice_id ?? undefined,
    customId: row.custom_id ?? undefined,
    noteToPayer: body.note_to_payer,
    softDescriptor: body.soft_descriptor ?? details.soft_descriptor,
    disbursementMode: body.payment_instruction?.disbursement_mode,
    payee: details.payee,
    cardChecks: details.card_checks,
  });
  if (!options.declined) {
    await store.updateAuthorization(ctx.db, ctx.accountId, row.id, {
      status: target,
      captured_minor: capturedAfter,
      capture_count: row.capture_count + 1n,
      update_time: isoSeconds(ctx.now),
    });
  }
  return resource;
}

/** Voids an authorization (and its open reauthorization, if any). */
export async function voidAuthorization(ctx: ServiceContext, id: string): Promise<Authorization> {
  const row = await loadAuthorization(ctx, id, { forUpdate: true });
  if (row.original_id !== null) {
    throw serviceError(
      'UNPROCESSABLE_ENTITY',
      'CANNOT_BE_VOIDED',
      `A reauthorization cannot be voided; void the original authorization ${row.original_id} instead.`,
    );
  }
  assertCanTransition('void', authorizationStatusOf(row.status), 'VOIDED');
  if (row.reauthorization_id !== null) {
    // Locked after its original, as every path locks them.
    const locked = await store.findAuthorization(ctx.db, ctx.accountId, row.reauthorization_id, { forUpdate: true });
    const renewal = locked && authorizationAt(locked, isoSeconds(ctx.now));
    if (renewal && (OPEN_AUTHORIZATION_STATUSES as readonly string[]).includes(renewal.status)) {
      await markVoided(ctx, renewal, null);
    }
  }
  return markVoided(ctx, row, null);
}

/** Renews an authorization after its honour period: a new authorization, same expiry. */
export async function reauthorizeAuthorization(ctx: ServiceContext, id: string, body: ReauthorizeBody): Promise<Authorization> {
  // Locked: two concurrent reauthorizations would otherwise both see reauthorization_id unset.
  const row = await loadAuthorization(ctx, id, { forUpdate: true });
  if (row.original_id !== null || row.reauthorization_id !== null) {
    throw serviceError(
      'UNPROCESSABLE_ENTITY',
      'REAUTHORIZATION_NOT_SUPPORTED',
      row.original_id !== null
        ? 'A reauthorization cannot itself be reauthorized.'
        : `This authorization was already reauthorized (${row.reauthorization_id}); it can be reauthorized once.`,
    );
  }
  assertNotExpired(row);
  assertCanTransition('reauthorize', authorizationStatusOf(row.status), 'CREATED');
  if (isoSeconds(ctx.now) < row.honor_expiration_time) {
    throw serviceError(
      'UNPROCESSABLE_ENTITY',
      'TRANSACTION_REFUSED',
      `The authorization is still in its honour period until ${row.honor_expiration_time}; reauthorize after that and before ${row.expiration_time}.`,
    );
  }
  const amountMinor = amountInCurrencyOf(body.amount, row.currency, {
    issue: 'AUTH_CURRENCY_MISMATCH',
    description: `The amount must be in ${row.currency}.`,
  });
  const percent = BigInt(ctx.deps.config.overCapturePercent);
  if (amountMinor * 100n > row.amount_minor * percent) {
    throw serviceError(
      'UNPROCESSABLE_ENTITY',
      'AUTHORIZATION_AMOUNT_EXCEEDED',
      `A reauthorization may be at most ${percent}% of the original amount.`,
      { field: '/amount/value', value: body.amount.value },
    );
  }
  return createReauthorization(ctx, row, amountMinor);
}

async function createReauthorization(ctx: ServiceContext, original: store.AuthorizationRow, amountMinor: bigint): Promise<Authorization> {
  const now = isoSeconds(ctx.now);
  const details = authorizationDetailsSchema.parse(JSON.parse(original.details));
  delete details.breakdown;
  // The original as read carries its `seq`; the new row gets its own from the database.
  const { seq: _originalSeq, ...copied } = original as store.AuthorizationRow & { seq?: bigint };
  const row: store.AuthorizationRow = {
    ...copied,
    id: transactionId(ctx.deps.ids),
    status: 'CREATED',
    status_reason: null,
    amount_minor: amountMinor,
    captured_minor: 0n,
    capture_count: 0n,
    original_id: original.id,
    reauthorization_id: null,
    honor_expiration_time: isoSeconds(addSeconds(ctx.now, HONOR_PERIOD_SECONDS)),
    details: JSON.stringify(details),
    create_time: now,
    update_time: now,
  };
  await store.insertAuthorization(ctx.db, row);
  await store.updateAuthorization(ctx.db, ctx.accountId, original.id, { reauthorization_id: row.id, update_time: now });
  const resource = presentAuthorization(row, ctx.baseUrl, now);
  await writePaymentEvent(ctx, 'PAYMENT.AUTHORIZATION.CREATED', resource);
  return resource;
}

/** Control plane: settles an authorization held for review (PENDING) as CREATED or DENIED. */
export async function reviewAuthorization(ctx: ServiceContext, id: string, decision: 'APPROVE' | 'DENY'): Promise<Authorization> {
  const row = await loadAuthorization(ctx, id, { forUpdate: true });
  const target: AuthorizationStatus = decision === 'APPROVE' ? 'CREATED' : 'DENIED';
  assertCanTransition('review', authorizationStatusOf(row.status), target);
  const changes = { status: target, status_reason: null, update_time: isoSeconds(ctx.now) } satisfies Partial<store.AuthorizationRow>;
  await store.updateAuthorization(ctx.db, ctx.accountId, row.id, changes);
  return presentAuthorization({ ...row, ...changes }, ctx.baseUrl, changes.update_time);
}

/**
 * Voids every open authorization of the account whose expiration time has passed, with
 * status_details.reason EXPIRED (a reauthorization shares its original's expiration time): writes
 * what reads already show (authorizationAt). Runs from the scheduler and when the clock moves.
 */
export async function expireDueAuthorizations(ctx: ServiceContext): Promise<number> {
  const due = await store.dueAuthorizations(ctx.db, ctx.accountId, isoSeconds(ctx.now), OPEN_AUTHORIZATION_STATUSES);
  for (const row of due) await markVoided(ctx, row, 'EXPIRED');
  return due.length;
}
