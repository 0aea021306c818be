// The steps of the model test: each predicts its outcome from the model (success, or the exact
// refusal), sends the request, compares, updates the model, then compares what it touched.

import fc from 'fast-check';
import { fromMinorUnits } from '../../../src/lib/money.js';
import {
  amountChoiceArb,
  amountRequest,
  baseAmountArb,
  CURRENCIES,
  describeChoice,
  invoicingAmountIssue,
  moneyBody,
  paymentsAmountIssue,
  resolveBase,
  type AmountChoice,
  type AmountRequest,
  type BaseAmount,
} from './amounts.js';
import {
  AUTHORIZATION_PERIOD,
  DAY,
  HONOR_PERIOD,
  HOUR,
  MAX_REFUNDS_PER_CAPTURE,
  OVER_CAPTURE_PERCENT,
  PAYABLE_INVOICE,
  REFUND_PERIOD,
  REFUNDABLE_INVOICE,
  addToBalance,
  advanceModelClock,
  balanceOf,
  isOpen,
  refundFee,
  settledInvoiceStatus,
  type Model,
  type ModelAuth,
  type ModelCapture,
  type ModelInvoice,
} from './state.js';
import {
  call,
  expectEqual,
  expectRefusal,
  expectStatus,
  mismatch,
  newCapture,
  verifyAuth,
  verifyBalances,
  verifyCapture,
  verifyInvoice,
  verifyRefund,
  type Session,
} from './system.js';

type Step = fc.AsyncCommand<Model, Session, false>;

const PAYMENTS_RETENTION = 45 * DAY;
const ORDERS_RETENTION = 6 * HOUR;
const INVOICING_RETENTION = 45 * DAY;
const CARD = { card: { number: '4111111111111111', expiry: '2030-12' } };

interface Refusal {
  status: number;
  issue: string;
}

const refused = (issue: string, status = 422): Refusal => ({ status, issue });

/** Runs bookkeeping common to every step: numbering and the trace line. */
function begin(session: Session, description: string): void {
  session.steps += 1;
  session.log.push(`${session.steps}. ${description}`);
}

/** Appends the outcome to the step's trace line and counts it under `kind: outcome`. */
function note(session: Session, kind: string, text: string, outcome = 'ok'): void {
  session.log[session.log.length - 1] += ` -> ${text}`;
  const key = `${kind}: ${outcome}`;
  session.outcomes.set(key, (session.outcomes.get(key) ?? 0) + 1);
}

function remember(model: Model, entry: Omit<Model['replayables'][number], 'at'>): void {
  model.replayables.push({ ...entry, at: model.now });
}

const pick = <T>(list: readonly T[], index: number): [T, number] => {
  const i = index % list.length;
  return [list[i] as T, i];
};

// ---- authorize: an order with a card, then authorized ----

class Authorize implements Step {
  constructor(
    readonly currency: string,
    readonly amount: BaseAmount,
  ) {}

  check(): boolean {
    return true;
  }

  async run(model: Model, session: Session): Promise<void> {
    const minor = resolveBase(this.amount, this.currency);
    begin(session, `authorize ${fromMinorUnits(minor, this.currency)} ${this.currency}`);
    const orderBody = {
      intent: 'AUTHORIZE',
      purchase_units: [{ amount: { currency_code: this.currency, value: fromMinorUnits(minor, this.currency) } }],
      payment_source: CARD,
    };
    const order = await call(session, 'POST', '/v2/checkout/orders', { body: orderBody });
    expectStatus(session, 'order creation', order.result, 201);
    expectEqual(session, 'order status', order.result.body.status, 'APPROVED', order.result);
    const path = `/v2/checkout/orders/${order.result.body.id}/authorize`;
    const authorized = await call(session, 'POST', path);
    expectStatus(session, 'order authorize', authorized.result, 201);
    const created = authorized.result.body.purchase_units?.[0]?.payments?.authorizations?.[0];
    if (!created?.id) mismatch(session, 'the authorized order lists no authorization', authorized.result);
    expectEqual(session, 'new authorization status', created.status, 'CREATED', authorized.result);
    const base = { body: undefined, retention: ORDERS_RETENTION, replayStatus: 200 };
    remember(model, { ...base, method: 'POST', path: '/v2/checkout/orders', body: orderBody, requestId: order.requestId, status: 201, text: order.result.text });
    remember(model, { ...base, method: 'POST', path, requestId: authorized.requestId, status: 201, text: authorized.result.text });
    model.auths.push({
      id: created.id,
      currency: this.currency,
      amount: minor,
      captured: 0n,
      status: 'CREATED',
      expired: false,
      honorUntil: model.now + HONOR_PERIOD,
      expiresAt: model.now + AUTHORIZATION_PERIOD,
    });
    note(session, 'authorize', `auth #${model.auths.length - 1} ${created.id}`);
    await verifyAuth(session, model, model.auths.length - 1);
  }

  toString(): string {
    return `authorize(${this.currency}, ${String(this.amount)})`;
  }
}

// ---- capture ----

function captureRefusal(auth: ModelAuth, request: AmountRequest): Refusal | undefined {
  if (auth.expired) return refused('AUTHORIZATION_EXPIRED');
  if (auth.status === 'CAPTURED') return refused('AUTHORIZATION_ALREADY_CAPTURED');
  if (auth.status === 'VOIDED') return refused('AUTHORIZATION_VOIDED');
  if (auth.reauthorization !== undefined) return refused('TRANSACTION_REFUSED');
  const issue = paymentsAmountIssue(request, 'AUTH_CAPTURE_CURRENCY_MISMATCH');
  if (issue) return refused(issue);
  const amount = request.minor ?? auth.amount - auth.captured;
  if ((auth.captured + amount) * 100n > auth.amount * OVER_CAPTURE_PERCENT) return refused('MAX_CAPTURE_AMOUNT_EXCEEDED');
  return undefined;
}

class Capture implements Step {
  constructor(
    readonly index: number,
    readonly choice: AmountChoice,
    readonly final: boolean | undefined,
    readonly declined: boolean,
  ) {}

  check(model: Readonly<Model>): boolean {
    return model.auths.length > 0;
  }

  async run(model: Model, session: Session): Promise<void> {
    const [auth, i] = pick(model.auths, this.index);
    const limit = (auth.amount * OVER_CAPTURE_PERCENT) / 100n;
    const request = amountRequest(this.choice, auth.currency, { remaining: auth.amount - auth.captured, ceiling: limit - auth.captured });
    begin(session, `capture auth #${i} (${auth.status}) ${request.value ?? 'rest'}${this.final !== undefined ? ` final=${this.final}` : ''}${this.declined ? ' declined' : ''}`);
    const body: Record<string, unknown> = {};
    if (request.value !== undefined) body.amount = moneyBody(request);
    if (this.final !== undefined) body.final_capture = this.final;
    const headers: Record<string, string> = this.declined ? { 'service-mock-response': '{"mock_application_codes":"INSTRUMENT_DECLINED"}' } : {};
    const path = `/v2/payments/authorizations/${auth.id}/capture`;
    const expected = captureRefusal(auth, request);
    const sent = await call(session, 'POST', path, { body, headers });
    if (expected) {
      expectRefusal(session, `capture of auth #${i}`, sent.result, expected.status, expected.issue);
      note(session, 'capture', `refused ${expected.issue}`, expected.issue);
    } else {
      expectStatus(session, `capture of auth #${i}`, sent.result, 200);
      const amount = request.minor ?? auth.amount - auth.captured;
      const target = this.final === true || auth.captured + amount >= auth.amount ? 'CAPTURED' : 'PARTIALLY_CAPTURED';
      const capture = newCapture(sent.result.body.id, i, auth.currency, amount, this.final ?? target === 'CAPTURED', this.declined, model.now);
      expectEqual(session, 'capture status', sent.result.body.status, capture.status, sent.result);
      if (!this.declined) {
        auth.captured += amount;
        auth.status = target;
        addToBalance(model, auth.currency, capture.net);
        // Replaying a declined capture is fine too, but the mock header must then be resent.
        remember(model, { method: 'POST', path, body, requestId: sent.requestId, status: 200, text: sent.result.text, retention: PAYMENTS_RETENTION, replayStatus: 200 });
      }
      model.captures.push(capture);
      note(session, 'capture', `capture #${model.captures.length - 1} ${capture.status} fee ${capture.fee}`, `ok ${capture.status} (auth ${auth.status})`);
      await verifyCapture(session, model, model.captures.length - 1);
    }
    await verifyAuth(session, model, i);
    await verifyBalances(session, model);
  }

  toString(): string {
    return `capture(#${this.index}, ${describeChoice(this.choice)}, final=${String(this.final)}${this.declined ? ', declined' : ''})`;
  }
}

// ---- void ----

class Void implements Step {
  constructor(readonly index: number) {}

  check(model: Readonly<Model>): boolean {
    return model.auths.length > 0;
  }

  async run(model: Model, session: Session): Promise<void> {
    const [auth, i] = pick(model.auths, this.index);
    begin(session, `void auth #${i} (${auth.status}${auth.expired ? ', expired' : ''})`);
    let expected: Refusal | undefined;
    if (auth.original !== undefined) expected = refused('CANNOT_BE_VOIDED');
    else if (auth.status === 'CAPTURED') expected = refused('PREVIOUSLY_CAPTURED');
    else if (auth.status === 'VOIDED') expected = refused('PREVIOUSLY_VOIDED');
    const path = `/v2/payments/authorizations/${auth.id}/void`;
    const sent = await call(session, 'POST', path);
    const touched = [i];
    if (expected) {
      expectRefusal(session, `void of auth #${i}`, sent.result, expected.status, expected.issue);
      note(session, 'void', `refused ${expected.issue}`, expected.issue);
    } else {
      expectStatus(session, `void of auth #${i}`, sent.result, 200);
      expectEqual(session, 'voided status', sent.result.body.status, 'VOIDED', sent.result);
      auth.status = 'VOIDED';
      const renewal = auth.reauthorization === undefined ? undefined : model.auths[auth.reauthorization];
      if (renewal && isOpen(renewal)) renewal.status = 'VOIDED';
      if (auth.reauthorization !== undefined) touched.push(auth.reauthorization);
      remember(model, { method: 'POST', path, body: undefined, requestId: sent.requestId, status: 200, text: sent.result.text, retention: PAYMENTS_RETENTION, replayStatus: 200 });
      note(session, 'void', 'VOIDED');
    }
    for (const index of touched) await verifyAuth(session, model, index);
  }

  toString(): string {
    return `void(#${this.index})`;
  }
}

// ---- reauthorize ----

function reauthorizeRefusal(model: Model, auth: ModelAuth, request: AmountRequest): Refusal | undefined {
  if (auth.original !== undefined || auth.reauthorization !== undefined) return refused('REAUTHORIZATION_NOT_SUPPORTED');
  if (auth.expired) return refused('AUTHORIZATION_EXPIRED');
  if (auth.status === 'PARTIALLY_CAPTURED' || auth.status === 'CAPTURED') return refused('AUTHORIZATION_ALREADY_CAPTURED');
  if (auth.status === 'VOIDED') return refused('AUTHORIZATION_VOIDED');
  if (model.now < auth.honorUntil) return refused('TRANSACTION_REFUSED');
  const issue = paymentsAmountIssue(request, 'AUTH_CURRENCY_MISMATCH');
  if (issue) return refused(issue);
  if ((request.minor ?? 0n) * 100n > auth.amount * OVER_CAPTURE_PERCENT) return refused('AUTHORIZATION_AMOUNT_EXCEEDED');
  return undefined;
}

class Reauthorize implements Step {
  constructor(
    readonly index: number,
    readonly choice: AmountChoice,
  ) {}

  check(model: Readonly<Model>): boolean {
    return model.auths.length > 0;
  }

  async run(model: Model, session: Session): Promise<void> {
    const [auth, i] = pick(model.auths, this.index);
    // The body needs an amount: "rest" means the original amount.
    const choice: AmountChoice = this.choice.kind === 'rest' ? { kind: 'exact' } : this.choice;
    const request = amountRequest(choice, auth.currency, { remaining: auth.amount, ceiling: (auth.amount * OVER_CAPTURE_PERCENT) / 100n });
    begin(session, `reauthorize auth #${i} (${auth.status}, day ${model.now / DAY}) ${request.value} ${request.currency}`);
    const expected = reauthorizeRefusal(model, auth, request);
    const path = `/v2/payments/authorizations/${auth.id}/reauthorize`;
    const body = { amount: moneyBody(request) };
    const sent = await call(session, 'POST', path, { body });
    if (expected) {
      expectRefusal(session, `reauthorization of auth #${i}`, sent.result, expected.status, expected.issue);
      note(session, 'reauthorize', `refused ${expected.issue}`, expected.issue);
      await verifyAuth(session, model, i);
      return;
    }
    expectStatus(session, `reauthorization of auth #${i}`, sent.result, 201);
    expectEqual(session, 'reauthorization status', sent.result.body.status, 'CREATED', sent.result);
    model.auths.push({
      id: sent.result.body.id,
      currency: auth.currency,
      amount: request.minor as bigint,
      captured: 0n,
      status: 'CREATED',
      expired: false,
      original: i,
      honorUntil: model.now + HONOR_PERIOD,
      expiresAt: auth.expiresAt,
    });
    auth.reauthorization = model.auths.length - 1;
    remember(model, { method: 'POST', path, body, requestId: sent.requestId, status: 201, text: sent.result.text, retention: PAYMENTS_RETENTION, replayStatus: 201 });
    note(session, 'reauthorize', `auth #${model.auths.length - 1} ${sent.result.body.id}`);
    await verifyAuth(session, model, i);
    await verifyAuth(session, model, model.auths.length - 1);
  }

  toString(): string {
    return `reauthorize(#${this.index}, ${describeChoice(this.choice)})`;
  }
}

// ---- refund ----

function refundRefusal(model: Model, capture: ModelCapture, request: AmountRequest): Refusal | undefined {
  if (capture.status === 'DECLINED') return refused('REFUND_NOT_ALLOWED');
  if (capture.status === 'REFUNDED') return refused('CAPTURE_FULLY_REFUNDED');
  const issue = paymentsAmountIssue(request, 'REFUND_CAPTURE_CURRENCY_MISMATCH');
  if (issue) return refused(issue);
  const remaining = capture.amount - capture.refunded;
  const amount = request.minor ?? remaining;
  if (amount > remaining) return refused('REFUND_AMOUNT_EXCEEDED');
  if (model.now - capture.createdAt >= REFUND_PERIOD) return refused('REFUND_TIME_LIMIT_EXCEEDED');
  if (capture.refunds >= MAX_REFUNDS_PER_CAPTURE) return refused('MAX_NUMBER_OF_REFUNDS_EXCEEDED');
  if (balanceOf(model, capture.currency) < amount - refundFee(capture, amount)) return refused('REFUND_FAILED_INSUFFICIENT_FUNDS');
  return undefined;
}

class Refund implements Step {
  constructor(
    readonly index: number,
    readonly choice: AmountChoice,
  ) {}

  check(model: Readonly<Model>): boolean {
    return model.captures.length > 0;
  }

  async run(model: Model, session: Session): Promise<void> {
    const [capture, i] = pick(model.captures, this.index);
    const request = amountRequest(this.choice, capture.currency, { remaining: capture.amount - capture.refunded });
    begin(session, `refund capture #${i} (${capture.status}, ${capture.refunds} refunds) ${request.value ?? 'rest'} ${request.currency}`);
    const expected = refundRefusal(model, capture, request);
    const path = `/v2/payments/captures/${capture.id}/refund`;
    const body = request.value === undefined ? {} : { amount: moneyBody(request) };
    const sent = await call(session, 'POST', path, { body });
    if (expected) {
      expectRefusal(session, `refund of capture #${i}`, sent.result, expected.status, expected.issue);
      note(session, 'refund', `refused ${expected.issue}`, expected.issue);
    } else {
      expectStatus(session, `refund of capture #${i}`, sent.result, 200);
      const amount = request.minor ?? capture.amount - capture.refunded;
      const fee = refundFee(capture, amount);
      capture.refunded += amount;
      capture.refundedFee += fee;
      capture.refunds += 1;
      capture.status = capture.refunded === capture.amount ? 'REFUNDED' : 'PARTIALLY_REFUNDED';
      addToBalance(model, capture.currency, -(amount - fee));
      model.refunds.push({ id: sent.result.body.id, capture: i, amount, fee, net: amount - fee, totalRefunded: capture.refunded });
      remember(model, { method: 'POST', path, body, requestId: sent.requestId, status: 200, text: sent.result.text, retention: PAYMENTS_RETENTION, replayStatus: 200 });
      note(session, 'refund', `refund #${model.refunds.length - 1} fee back ${fee}`, `ok ${capture.status}`);
      await verifyRefund(session, model, model.refunds.length - 1);
    }
    await verifyCapture(session, model, i);
    await verifyBalances(session, model);
  }

  toString(): string {
    return `refund(#${this.index}, ${describeChoice(this.choice)})`;
  }
}

/** Many small refunds of one capture in a row (reaches the 10-refund limit). */
class RefundBurst implements Step {
  constructor(
    readonly index: number,
    readonly count: number,
  ) {}

  check(model: Readonly<Model>): boolean {
    return model.captures.length > 0;
  }

  async run(model: Model, session: Session): Promise<void> {
    const one = new Refund(this.index, { kind: 'one' });
    for (let i = 0; i < this.count; i += 1) await one.run(model, session);
  }

  toString(): string {
    return `refunds(#${this.index}, ${this.count} × one unit)`;
  }
}

// ---- invoices ----

class SendInvoice implements Step {
  constructor(
    readonly currency: string,
    readonly amount: BaseAmount,
  ) {}

  check(): boolean {
    return true;
  }

  async run(model: Model, session: Session): Promise<void> {
    const total = resolveBase(this.amount, this.currency);
    const value = fromMinorUnits(total, this.currency);
    begin(session, `invoice ${value} ${this.currency} (create + send)`);
    const body = {
      detail: { currency_code: this.currency },
      primary_recipients: [{ billing_info: { email_address: 'payer@example.com' } }],
      items: [{ name: 'Service', quantity: '1', unit_amount: { currency_code: this.currency, value } }],
    };
    const created = await call(session, 'POST', '/v2/invoicing/invoices', { body });
    expectStatus(session, 'invoice creation', created.result, 201);
    expectEqual(session, 'new invoice status', created.result.body.status, 'DRAFT', created.result);
    const id = created.result.body.id as string;
    const sendPath = `/v2/invoicing/invoices/${id}/send`;
    const sent = await call(session, 'POST', sendPath, { body: {} });
    expectStatus(session, 'invoice send', sent.result, 200);
    const base = { retention: INVOICING_RETENTION };
    remember(model, { ...base, method: 'POST', path: '/v2/invoicing/invoices', body, requestId: created.requestId, status: 201, text: created.result.text, replayStatus: 201 });
    remember(model, { ...base, method: 'POST', path: sendPath, body: {}, requestId: sent.requestId, status: 200, text: sent.result.text, replayStatus: 200 });
    model.invoices.push({ id, currency: this.currency, total, paid: 0n, refunded: 0n, paymentsExternal: [], refundsExternal: [], status: 'SENT' });
    note(session, 'invoice', `invoice #${model.invoices.length - 1} ${id}`);
    await verifyInvoice(session, model, model.invoices.length - 1);
  }

  toString(): string {
    return `invoice(${this.currency}, ${String(this.amount)})`;
  }
}

type InvoiceAction = 'payment' | 'refund';

function invoiceRefusal(action: InvoiceAction, invoice: ModelInvoice, request: AmountRequest): Refusal | undefined {
  const allowed = action === 'payment' ? PAYABLE_INVOICE : REFUNDABLE_INVOICE;
  if (!allowed.includes(invoice.status)) return refused(action === 'payment' ? 'CANNOT_PROCESS_PAYMENTS' : 'CANNOT_PROCESS_REFUNDS');
  const issue = invoicingAmountIssue(request);
  if (issue) return refused(issue, 400);
  const left = action === 'payment' ? invoice.total - invoice.paid : invoice.paid - invoice.refunded;
  if ((request.minor ?? left) > left) return refused(action === 'payment' ? 'PAYMENT_AMOUNT_GREATER_THAN_AMOUNT_DUE' : 'INVALID_REFUND_AMOUNT');
  return undefined;
}

class RecordOnInvoice implements Step {
  constructor(
    readonly action: InvoiceAction,
    readonly index: number,
    readonly choice: AmountChoice,
    readonly platform: boolean,
  ) {}

  check(model: Readonly<Model>): boolean {
    return model.invoices.length > 0;
  }

  async run(model: Model, session: Session): Promise<void> {
    const [invoice, i] = pick(model.invoices, this.index);
    const left = this.action === 'payment' ? invoice.total - invoice.paid : invoice.paid - invoice.refunded;
    const request = amountRequest(this.choice, invoice.currency, { remaining: left });
    const method = this.platform ? 'PLATFORM' : 'BANK_TRANSFER';
    begin(session, `record ${this.action} on invoice #${i} (${invoice.status}) ${request.value ?? 'rest'} ${request.currency} ${method}`);
    const expected = invoiceRefusal(this.action, invoice, request);
    const path = `/v2/invoicing/invoices/${invoice.id}/${this.action === 'payment' ? 'payments' : 'refunds'}`;
    const body: Record<string, unknown> = { method };
    if (request.value !== undefined) body.amount = moneyBody(request);
    const sent = await call(session, 'POST', path, { body });
    if (expected) {
      expectRefusal(session, `${this.action} on invoice #${i}`, sent.result, expected.status, expected.issue);
      note(session, `invoice ${this.action}`, `refused ${expected.issue}`, expected.issue);
    } else {
      expectStatus(session, `${this.action} on invoice #${i}`, sent.result, 200);
      const amount = request.minor ?? left;
      if (this.action === 'payment') {
        invoice.paid += amount;
        invoice.paymentsExternal.push(!this.platform);
      } else {
        invoice.refunded += amount;
        invoice.refundsExternal.push(!this.platform);
      }
      invoice.status = settledInvoiceStatus(invoice);
      remember(model, { method: 'POST', path, body, requestId: sent.requestId, status: 200, text: sent.result.text, retention: INVOICING_RETENTION, replayStatus: 200 });
      note(session, `invoice ${this.action}`, invoice.status, `ok ${invoice.status}`);
    }
    await verifyInvoice(session, model, i);
  }

  toString(): string {
    return `invoice-${this.action}(#${this.index}, ${describeChoice(this.choice)}${this.platform ? ', PLATFORM' : ''})`;
  }
}

// ---- the clock ----

/** Multiples of 12 hours, so that model time never sits within seconds of a period's end. */
const ADVANCES = [12 * HOUR, DAY, 2 * DAY, 3 * DAY, 4 * DAY, 10 * DAY, 26 * DAY, 30 * DAY, 46 * DAY, 200 * DAY] as const;
/** 200 days (past the refund period) twice as often as the others. */
const advanceArb = fc.oneof(fc.constantFrom(...ADVANCES), fc.constant(200 * DAY));

class AdvanceClock implements Step {
  constructor(readonly seconds: number) {}

  check(): boolean {
    return true;
  }

  async run(model: Model, session: Session): Promise<void> {
    begin(session, `advance the clock ${this.seconds / HOUR} h (to day ${(model.now + this.seconds) / DAY})`);
    const { result } = await call(session, 'POST', '/_payctl/clock', { body: { advance_seconds: this.seconds } });
    expectStatus(session, 'clock advance', result, 200);
    // Tokens live in real time: the session's token survives the move.
    const expiredBefore = model.auths.filter((auth) => auth.expired).length;
    advanceModelClock(model, this.seconds);
    const expired = model.auths.filter((auth) => auth.expired).length - expiredBefore;
    note(session, 'advance', `${expired} authorization(s) expired`, expired > 0 ? 'ok, expiring authorizations' : 'ok');
    for (let i = 0; i < model.auths.length; i += 1) await verifyAuth(session, model, i);
  }

  toString(): string {
    return `advance(${this.seconds / HOUR}h)`;
  }
}

// ---- resending an earlier request with its request id ----

class Replay implements Step {
  constructor(readonly index: number) {}

  check(model: Readonly<Model>): boolean {
    return model.replayables.length > 0;
  }

  async run(model: Model, session: Session): Promise<void> {
    const [original, i] = pick(model.replayables, this.index);
    // Only while the server still keeps the request id (model time moves by 12 h at least).
    if (model.now - original.at >= original.retention) {
      begin(session, `replay #${i}: ${original.method} ${original.path}`);
      note(session, 'replay', 'skipped: past the request id retention', 'skipped (past retention)');
      return;
    }
    begin(session, `replay #${i}: ${original.method} ${original.path} (id ${original.requestId})`);
    const { result } = await call(session, original.method, original.path, { body: original.body, requestId: original.requestId });
    expectEqual(session, `replayed ${original.path} status`, result.status, original.replayStatus, result);
    expectEqual(session, `replayed ${original.path} body`, result.text, original.text, result);
    note(session, 'replay', 'same answer');
    await verifyBalances(session, model);
  }

  toString(): string {
    return `replay(#${this.index})`;
  }
}

// ---- the generator ----

const currencyArb = fc.constantFrom(...CURRENCIES);
const indexArb = fc.nat({ max: 1000 });

export const stepArbs: Array<fc.Arbitrary<Step>> = [
  fc.tuple(currencyArb, baseAmountArb).map(([currency, amount]) => new Authorize(currency, amount)),
  fc.tuple(currencyArb, baseAmountArb).map(([currency, amount]) => new Authorize(currency, amount)),
  fc
    .tuple(indexArb, amountChoiceArb, fc.option(fc.boolean(), { nil: undefined }), fc.integer({ min: 0, max: 9 }).map((n) => n < 3))
    .map(([index, choice, final, declined]) => new Capture(index, choice, final, declined)),
  fc.tuple(indexArb, amountChoiceArb, fc.option(fc.boolean(), { nil: undefined })).map(([index, choice, final]) => new Capture(index, choice, final, false)),
  indexArb.map((index) => new Void(index)),
  fc.tuple(indexArb, amountChoiceArb).map(([index, choice]) => new Reauthorize(index, choice)),
  fc.tuple(indexArb, amountChoiceArb).map(([index, choice]) => new Refund(index, choice)),
  fc.tuple(indexArb, amountChoiceArb).map(([index, choice]) => new Refund(index, choice)),
  fc.tuple(indexArb, fc.integer({ min: 2, max: 12 })).map(([index, count]) => new RefundBurst(index, count)),
  fc.tuple(currencyArb, baseAmountArb).map(([currency, amount]) => new SendInvoice(currency, amount)),
  fc
    .tuple(fc.constantFrom<InvoiceAction>('payment', 'refund'), indexArb, amountChoiceArb, fc.boolean())
    .map(([action, index, choice, platform]) => new RecordOnInvoice(action, index, choice, platform)),
  fc
    .tuple(fc.constantFrom<InvoiceAction>('payment', 'refund'), indexArb, amountChoiceArb, fc.boolean())
    .map(([action, index, choice, platform]) => new RecordOnInvoice(action, index, choice, platform)),
  advanceArb.map((seconds) => new AdvanceClock(seconds)),
  indexArb.map((index) => new Replay(index)),
];
