// The model the property tests hold the server to: a few plain records in bigint minor units, and
// the rules that move them, written from the documented rules (docs/payments.md) rather than from the server's code.

import { currencyExponent } from '../../../src/lib/money.js';

export const HOUR = 3_600;
export const DAY = 86_400;
export const HONOR_PERIOD = 3 * DAY;
export const AUTHORIZATION_PERIOD = 29 * DAY;
export const REFUND_PERIOD = 180 * DAY;
export const OVER_CAPTURE_PERCENT = 115n;
export const MAX_REFUNDS_PER_CAPTURE = 10;

export type AuthStatus = 'CREATED' | 'PARTIALLY_CAPTURED' | 'CAPTURED' | 'VOIDED';
export type CaptureStatus = 'COMPLETED' | 'PARTIALLY_REFUNDED' | 'REFUNDED' | 'DECLINED';
export type InvoiceStatus =
  | 'SENT'
  | 'PARTIALLY_PAID'
  | 'PAID'
  | 'MARKED_AS_PAID'
  | 'PARTIALLY_REFUNDED'
  | 'REFUNDED'
  | 'MARKED_AS_REFUNDED';

export interface ModelAuth {
  id: string;
  currency: string;
  amount: bigint;
  captured: bigint;
  status: AuthStatus;
  /** Voided by the server at its expiration time. */
  expired: boolean;
  /** Index of the authorization this one reauthorizes. */
  original?: number;
  /** Index of this authorization's reauthorization. */
  reauthorization?: number;
  honorUntil: number;
  expiresAt: number;
}

export interface ModelCapture {
  id: string;
  auth: number;
  currency: string;
  amount: bigint;
  fee: bigint;
  net: bigint;
  refunded: bigint;
  refundedFee: bigint;
  refunds: number;
  status: CaptureStatus;
  finalCapture: boolean;
  createdAt: number;
}

export interface ModelRefund {
  id: string;
  capture: number;
  amount: bigint;
  fee: bigint;
  net: bigint;
  totalRefunded: bigint;
}

export interface ModelInvoice {
  id: string;
  currency: string;
  total: bigint;
  paid: bigint;
  refunded: bigint;
  /** Whether each recorded payment (refund) was made outside the platform. */
  paymentsExternal: boolean[];
  refundsExternal: boolean[];
  status: InvoiceStatus;
}

/** A mutation that succeeded, kept so that a later step can resend it with the same request id. */
export interface Replayable {
  method: string;
  path: string;
  body: unknown;
  requestId: string;
  status: number;
  text: string;
  at: number;
  /** How long the server keeps the request id (seconds of account time). */
  retention: number;
  /** Creations answer 200 instead of 201 when replayed (orders). */
  replayStatus: number;
}

export interface Model {
  /** Seconds the merchant's clock has been advanced. */
  now: number;
  auths: ModelAuth[];
  captures: ModelCapture[];
  refunds: ModelRefund[];
  invoices: ModelInvoice[];
  balances: Map<string, bigint>;
  replayables: Replayable[];
}

export function emptyModel(): Model {
  return { now: 0, auths: [], captures: [], refunds: [], invoices: [], balances: new Map(), replayables: [] };
}

export const balanceOf = (model: Model, currency: string): bigint => model.balances.get(currency) ?? 0n;

export function addToBalance(model: Model, currency: string, minor: bigint): void {
  model.balances.set(currency, balanceOf(model, currency) + minor);
}

export const isOpen = (auth: ModelAuth): boolean => auth.status === 'CREATED' || auth.status === 'PARTIALLY_CAPTURED';

/** Moves the clock; open authorizations past their expiration time become VOIDED (expired). */
export function advanceModelClock(model: Model, seconds: number): void {
  model.now += seconds;
  for (const auth of model.auths) {
    if (isOpen(auth) && model.now >= auth.expiresAt) {
      auth.status = 'VOIDED';
      auth.expired = true;
    }
  }
}

// ---- fees (docs/payments.md, "Fees") ----

const FIXED_FEES: Readonly<Record<string, bigint>> = { USD: 49n, EUR: 39n, GBP: 29n, JPY: 49n };

/** 0.49 of the currency's major unit in minor units, half-up (0 for HUF and TWD). */
function fixedFee(currency: string): bigint {
  const listed = FIXED_FEES[currency];
  if (listed !== undefined) return listed;
  const exponent = currencyExponent(currency);
  // 49 hundredths of a major unit = 49 × 10^exponent / 100, rounded half-up.
  return (49n * 10n ** BigInt(exponent) * 2n + 100n) / 200n;
}

/** half-up of a / b for a >= 0, b > 0 */
const halfUp = (numerator: bigint, denominator: bigint): bigint => (numerator * 2n + denominator) / (2n * denominator);

export function captureFee(amount: bigint, currency: string): bigint {
  const fee = halfUp(amount * 349n, 10_000n) + fixedFee(currency);
  return fee > amount ? amount : fee;
}

/** The fee a refund returns: its share of the capture's fee; the refund that empties the capture returns the rest. */
export function refundFee(capture: ModelCapture, amount: bigint): bigint {
  const left = capture.fee - capture.refundedFee;
  if (capture.refunded + amount === capture.amount) return left;
  const share = halfUp(capture.fee * amount, capture.amount);
  return share > left ? left : share;
}

// ---- invoices ----

/** The status recorded payments and refunds put a sent invoice in. */
export function settledInvoiceStatus(invoice: ModelInvoice): InvoiceStatus {
  if (invoice.refunded > 0n) {
    if (invoice.refunded < invoice.paid) return 'PARTIALLY_REFUNDED';
    // REFUNDED only when every refund went through the platform; any recorded one marks it.
    return invoice.refundsExternal.some(Boolean) ? 'MARKED_AS_REFUNDED' : 'REFUNDED';
  }
  if (invoice.paid === 0n) return 'SENT';
  if (invoice.paid < invoice.total) return 'PARTIALLY_PAID';
  return invoice.paymentsExternal.some(Boolean) ? 'MARKED_AS_PAID' : 'PAID';
}

export const PAYABLE_INVOICE: readonly InvoiceStatus[] = ['SENT', 'PARTIALLY_PAID'];
export const REFUNDABLE_INVOICE: readonly InvoiceStatus[] = ['PAID', 'MARKED_AS_PAID', 'PARTIALLY_PAID', 'PARTIALLY_REFUNDED'];
