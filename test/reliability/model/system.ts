// The real side of the model test: one merchant on the shared test server, spoken to over HTTP,
// and the comparisons of what the server shows with what the model holds.

import { randomUUID } from 'node:crypto';
import { fromMinorUnits } from '../../../src/lib/money.js';
import type { HttpResult, Merchant, TestServer } from '../../helpers/server.js';
import { captureFee, type Model, type ModelAuth, type ModelCapture, type ModelInvoice } from './state.js';

export interface Session {
  t: TestServer;
  merchant: Merchant;
  /** What each step did, for the failure message. */
  log: string[];
  steps: number;
  requests: number;
  /** How often each kind of step ended each way (`capture: MAX_CAPTURE_AMOUNT_EXCEEDED`), over all runs. */
  outcomes: Map<string, number>;
}

export async function newSession(t: TestServer): Promise<Session> {
  return { t, merchant: await t.createMerchant(), log: [], steps: 0, requests: 0, outcomes: new Map() };
}

/** A model/server disagreement: names the step, shows the server's answer and the steps so far. */
export class ModelMismatch extends Error {}

export function mismatch(session: Session, what: string, result?: HttpResult): never {
  const answer = result ? `\nserver answered ${result.status}: ${result.text.slice(0, 1500)}` : '';
  throw new ModelMismatch(`model mismatch at step ${session.steps}: ${what}${answer}\nsteps of this run:\n  ${session.log.join('\n  ')}`);
}

export function expectEqual(session: Session, what: string, actual: unknown, expected: unknown, result?: HttpResult): void {
  if (actual !== expected) mismatch(session, `${what}: expected ${String(expected)}, got ${String(actual)}`, result);
}

export interface CallOptions {
  body?: unknown;
  /** Sends this request id (a fresh one for every mutation otherwise). */
  requestId?: string;
  headers?: Record<string, string>;
}

export interface Sent {
  result: HttpResult;
  requestId: string;
}

export async function call(session: Session, method: string, path: string, options: CallOptions = {}): Promise<Sent> {
  const requestId = options.requestId ?? `model-${randomUUID()}`;
  const headers: Record<string, string> = { prefer: 'return=representation', ...(options.headers ?? {}) };
  if (method !== 'GET') headers['service-request-id'] = requestId;
  session.requests += 1;
  const result = await session.t.request(method, path, {
    token: session.merchant.token,
    headers,
    ...(options.body !== undefined ? { body: options.body } : {}),
  });
  if (result.status === 401) mismatch(session, `${method} ${path} was not authenticated`, result);
  return { result, requestId };
}

const NAME_FOR_STATUS: Readonly<Record<number, string>> = { 400: 'INVALID_REQUEST', 404: 'RESOURCE_NOT_FOUND', 422: 'UNPROCESSABLE_ENTITY' };

/** The answer must be the refusal the model predicts: status, error name and issue code. */
export function expectRefusal(session: Session, what: string, result: HttpResult, status: number, issue: string): void {
  const body = result.body as { name?: string; details?: Array<{ issue?: string }> } | undefined;
  const actualIssue = body?.details?.[0]?.issue;
  if (result.status !== status || body?.name !== NAME_FOR_STATUS[status] || actualIssue !== issue) {
    mismatch(session, `${what}: expected ${status} ${NAME_FOR_STATUS[status]} ${issue}, got ${result.status} ${body?.name} ${actualIssue}`, result);
  }
}

export function expectStatus(session: Session, what: string, result: HttpResult, status: number): void {
  if (result.status !== status) mismatch(session, `${what}: expected ${status}`, result);
}

const money = (minor: bigint, currency: string) => `${fromMinorUnits(minor, currency)} ${currency}`;
const moneyOf = (value: unknown): string | undefined => {
  const amount = value as { value?: string; currency_code?: string } | undefined;
  return amount?.value === undefined ? undefined : `${amount.value} ${amount.currency_code}`;
};
const relsOf = (body: { links?: Array<{ rel: string }> }): string => (body.links ?? []).map((link) => link.rel).sort().join(',');

async function get(session: Session, path: string): Promise<HttpResult> {
  const { result } = await call(session, 'GET', path);
  if (result.status !== 200) mismatch(session, `GET ${path}`, result);
  return result;
}

// ---- comparisons ----

export async function verifyAuth(session: Session, model: Model, index: number): Promise<void> {
  const auth = model.auths[index] as ModelAuth;
  const result = await get(session, `/v2/payments/authorizations/${auth.id}`);
  const body = result.body;
  const label = `authorization #${index} ${auth.id}`;
  expectEqual(session, `${label} status`, body.status, auth.status, result);
  expectEqual(session, `${label} amount`, moneyOf(body.amount), money(auth.amount, auth.currency), result);
  // Expiry shows as VOIDED past expiration_time: EXPIRED is not one of the API's reasons.
  expectEqual(session, `${label} status_details.reason`, body.status_details?.reason, undefined, result);
  if (auth.expired) expectEqual(session, `${label} voided on expiry`, Date.parse(body.update_time) >= Date.parse(body.expiration_time), true, result);
  const open = auth.status === 'CREATED' || auth.status === 'PARTIALLY_CAPTURED';
  const rels = ['self', 'up'];
  if (open && auth.reauthorization === undefined) rels.push('capture');
  if (open && auth.original === undefined) rels.push('void');
  if (auth.status === 'CREATED' && auth.original === undefined && auth.reauthorization === undefined) rels.push('reauthorize');
  expectEqual(session, `${label} links`, relsOf(body), rels.sort().join(','), result);
  const row = await session.t.server.db
    .selectFrom('authorizations')
    .select(['captured_minor'])
    .where('id', '=', auth.id)
    .executeTakeFirstOrThrow();
  expectEqual(session, `${label} captured (stored)`, row.captured_minor, auth.captured);
}

export async function verifyCapture(session: Session, model: Model, index: number): Promise<void> {
  const capture = model.captures[index] as ModelCapture;
  const result = await get(session, `/v2/payments/captures/${capture.id}`);
  const body = result.body;
  const label = `capture #${index} ${capture.id}`;
  expectEqual(session, `${label} status`, body.status, capture.status, result);
  expectEqual(session, `${label} amount`, moneyOf(body.amount), money(capture.amount, capture.currency), result);
  expectEqual(session, `${label} final_capture`, body.final_capture, capture.finalCapture, result);
  const breakdown = body.seller_receivable_breakdown;
  if (capture.status === 'DECLINED') {
    expectEqual(session, `${label} has no breakdown`, breakdown, undefined, result);
  } else {
    expectEqual(session, `${label} gross`, moneyOf(breakdown?.gross_amount), money(capture.amount, capture.currency), result);
    expectEqual(session, `${label} fee`, moneyOf(breakdown?.paypal_fee), money(capture.fee, capture.currency), result);
    expectEqual(session, `${label} net`, moneyOf(breakdown?.net_amount), money(capture.net, capture.currency), result);
  }
  const refundable = capture.status === 'COMPLETED' || capture.status === 'PARTIALLY_REFUNDED';
  expectEqual(session, `${label} links`, relsOf(body), (refundable ? ['refund', 'self', 'up'] : ['self', 'up']).join(','), result);
  const row = await session.t.server.db
    .selectFrom('captures')
    .select(['refunded_minor', 'refunded_fee_minor', 'refund_count'])
    .where('id', '=', capture.id)
    .executeTakeFirstOrThrow();
  expectEqual(session, `${label} refunded (stored)`, row.refunded_minor, capture.refunded);
  expectEqual(session, `${label} refunded fee (stored)`, row.refunded_fee_minor, capture.refundedFee);
  expectEqual(session, `${label} refund count (stored)`, row.refund_count, BigInt(capture.refunds));
}

export async function verifyRefund(session: Session, model: Model, index: number): Promise<void> {
  const refund = model.refunds[index];
  if (!refund) return;
  const capture = model.captures[refund.capture] as ModelCapture;
  const result = await get(session, `/v2/payments/refunds/${refund.id}`);
  const body = result.body;
  const label = `refund #${index} ${refund.id}`;
  const breakdown = body.seller_payable_breakdown;
  expectEqual(session, `${label} status`, body.status, 'COMPLETED', result);
  expectEqual(session, `${label} amount`, moneyOf(body.amount), money(refund.amount, capture.currency), result);
  expectEqual(session, `${label} fee returned`, moneyOf(breakdown?.paypal_fee), money(refund.fee, capture.currency), result);
  expectEqual(session, `${label} net`, moneyOf(breakdown?.net_amount), money(refund.net, capture.currency), result);
  expectEqual(session, `${label} total refunded`, moneyOf(breakdown?.total_refunded_amount), money(refund.totalRefunded, capture.currency), result);
}

export async function verifyInvoice(session: Session, model: Model, index: number): Promise<void> {
  const invoice = model.invoices[index] as ModelInvoice;
  const result = await get(session, `/v2/invoicing/invoices/${invoice.id}`);
  const body = result.body;
  const label = `invoice #${index} ${invoice.id}`;
  expectEqual(session, `${label} status`, body.status, invoice.status, result);
  expectEqual(session, `${label} total`, moneyOf(body.amount), money(invoice.total, invoice.currency), result);
  const due = invoice.total - invoice.paid;
  expectEqual(session, `${label} due`, moneyOf(body.due_amount), money(due > 0n ? due : 0n, invoice.currency), result);
  const paid = invoice.paymentsExternal.length > 0 ? money(invoice.paid, invoice.currency) : undefined;
  expectEqual(session, `${label} paid`, moneyOf(body.payments?.paid_amount), paid, result);
  expectEqual(session, `${label} payments`, body.payments?.transactions?.length ?? 0, invoice.paymentsExternal.length, result);
  const refunded = invoice.refundsExternal.length > 0 ? money(invoice.refunded, invoice.currency) : undefined;
  expectEqual(session, `${label} refunded`, moneyOf(body.refunds?.refund_amount), refunded, result);
  expectEqual(session, `${label} refunds`, body.refunds?.transactions?.length ?? 0, invoice.refundsExternal.length, result);
}

export async function verifyBalances(session: Session, model: Model): Promise<void> {
  const result = await get(session, '/_payctl/balances');
  const shown = new Map<string, string>();
  for (const balance of (result.body as { balances: Array<{ currency: string; value: string }> }).balances) {
    shown.set(balance.currency, `${balance.value} ${balance.currency}`);
  }
  for (const currency of new Set([...shown.keys(), ...model.balances.keys()])) {
    expectEqual(session, `${currency} balance`, shown.get(currency) ?? money(0n, currency), money(model.balances.get(currency) ?? 0n, currency), result);
  }
}

/** Everything the model holds, compared with the server. */
export async function verifyAll(session: Session, model: Model): Promise<void> {
  for (let i = 0; i < model.auths.length; i += 1) await verifyAuth(session, model, i);
  for (let i = 0; i < model.captures.length; i += 1) await verifyCapture(session, model, i);
  for (let i = 0; i < model.refunds.length; i += 1) await verifyRefund(session, model, i);
  for (let i = 0; i < model.invoices.length; i += 1) await verifyInvoice(session, model, i);
  await verifyBalances(session, model);
}

/** The merchant's ledger audit must find nothing. */
export async function verifyAudit(session: Session): Promise<void> {
  const result = await get(session, '/_payctl/audit');
  const audit = result.body as { ok: boolean; checks: Array<{ name: string; violations: unknown[] }> };
  if (!audit.ok) {
    const broken = audit.checks.filter((check) => check.violations.length > 0);
    mismatch(session, `audit found violations: ${JSON.stringify(broken).slice(0, 1500)}`);
  }
}

/** A capture of `amount` as the model expects it right after it is made. */
export function newCapture(id: string, auth: number, currency: string, amount: bigint, finalCapture: boolean, declined: boolean, now: number): ModelCapture {
  const fee = declined ? 0n : captureFee(amount, currency);
  return {
    id,
    auth,
    currency,
    amount,
    fee,
    net: declined ? 0n : amount - fee,
    refunded: 0n,
    refundedFee: 0n,
    refunds: 0,
    status: declined ? 'DECLINED' : 'COMPLETED',
    finalCapture,
    createdAt: now,
  };
}
