// What each kind of scenario step takes (checked before anything runs) and does (through src/lib/api).

import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { ApiClient } from './api/client.js';
import { ApiError, UsageError } from './api/errors.js';
import { acceptClaim, escalateDispute, getDispute, openSandboxDispute, provideEvidence, appealDispute, type Dispute } from './api/disputes.js';
import { createInvoice, getInvoice, recordPayment, sendInvoice } from './api/invoices.js';
import { approveOrder, authorizeOrder, captureOrder, createOrder, type Order } from './api/orders.js';
import { captureAuthorization, refundCapture } from './api/payments.js';
import { createPayoutBatch } from './api/payouts.js';
import {
  addFaultRule,
  adjudicateDispute,
  advanceClock,
  createSandboxAccount,
  getClock,
  grantConsent,
  listFaultRules,
  topUpBalance,
  type FaultResponse,
  type SandboxAccount,
} from './api/sandbox.js';
import { createWebhook } from './api/webhooks.js';
import { DISPUTE_REASONS } from './disputes.js';
import { parseDuration } from './duration.js';

const money = z.strictObject({ currency_code: z.string().regex(/^[A-Z]{3}$/), value: z.string().regex(/^\d+(\.\d+)?$/, 'an amount as a string, e.g. "10.00"') });
const id = z.string().min(1);
const duration = z.string().refine((text) => {
  try {
    return parseDuration(text) > 0;
  } catch {
    return false;
  }
}, 'a duration: 30d, 12h, 90m, 1d12h');

export const ORDER_STATES = ['created', 'approved', 'authorized', 'captured'] as const;
export const INVOICE_STATES = ['draft', 'sent', 'paid'] as const;
/** How far a dispute step takes its dispute: a stage, or settled by the seller accepting the claim. */
export const DISPUTE_TARGETS = ['INQUIRY', 'CHARGEBACK', 'PRE_ARBITRATION', 'ARBITRATION', 'RESOLVED'] as const;

export const stepSchemas = {
  account: z.strictObject({ email: z.string().regex(/^[^@\s]{1,64}@[^@\s]+$/, 'an email address') }),
  consent: z.strictObject({ platform_client_id: id, payer_id: id }),
  top_up: money,
  order: z.strictObject({
    intent: z.enum(['CAPTURE', 'AUTHORIZE']).default('CAPTURE'),
    amount: money,
    invoice_id: z.string().optional(),
    to: z.enum(ORDER_STATES).optional(),
  }),
  capture: z.strictObject({ authorization_id: id, amount: money.optional(), final_capture: z.boolean().optional(), invoice_id: z.string().optional(), note_to_payer: z.string().optional() }),
  refund: z.strictObject({ capture_id: id, amount: money.optional(), invoice_id: z.string().optional(), note_to_payer: z.string().optional() }),
  invoice: z.strictObject({
    invoice: z.record(z.string(), z.unknown()),
    to: z.enum(INVOICE_STATES).default('draft'),
    payment: z.strictObject({ method: z.string().default('BANK_TRANSFER'), amount: money.optional(), payment_date: z.string().optional(), note: z.string().optional() }).optional(),
  }),
  dispute: z.strictObject({
    capture_id: id,
    reason: z.enum(DISPUTE_REASONS),
    amount: money.optional(),
    message: z.string().optional(),
    stage: z.enum(DISPUTE_TARGETS).default('INQUIRY'),
  }),
  payout: z.strictObject({
    sender_batch_header: z.record(z.string(), z.unknown()).optional(),
    items: z.array(z.looseObject({ receiver: z.string().min(1), amount: z.looseObject({ currency: z.string(), value: z.string() }) })).min(1),
  }),
  webhook: z.strictObject({ url: z.string().regex(/^https?:\/\//, 'an http or https URL'), event_types: z.array(z.string()).min(1) }),
  clock: z.strictObject({ offset: duration }),
  fault: z.strictObject({
    method: z.string(),
    path: z.string().startsWith('/'),
    after: z.number().int().min(0).optional(),
    times: z.number().int().min(1).optional(),
    respond: z.union([
      z.strictObject({ status: z.number().int().min(400).max(599), retry_after: z.number().int().min(0).optional() }),
      z.strictObject({ name: z.string(), issue: z.string() }),
      z.strictObject({ delay_ms: z.number().int().min(0) }),
      z.strictObject({ drop: z.literal(true) }),
    ]),
  }),
} as const;

export type StepKind = keyof typeof stepSchemas;
export const STEP_KINDS = Object.keys(stepSchemas) as StepKind[];
type Input<K extends StepKind> = z.output<(typeof stepSchemas)[K]>;

/** What a step runs with. */
export interface StepContext {
  client: ApiClient;
  /** A client for the same server with no credentials (admin-key calls). */
  anonymous: ApiClient;
  adminKey: string | undefined;
  /** The request id of one call of this step: the same on every run of the file. */
  requestId: (call: string) => string;
  /** Credentials of accounts earlier runs made, by email (the server has no way to read them back). */
  knownAccounts: { get(email: string): SandboxAccount | undefined; set(account: SandboxAccount): void };
}

type Runner<K extends StepKind> = (ctx: StepContext, input: Input<K>) => Promise<unknown>;

function needAdminKey(ctx: StepContext): string {
  if (!ctx.adminKey) throw new UsageError("this step needs the server's admin key: pass --admin-key or set PAYCTL_ADMIN_KEY");
  return ctx.adminKey;
}

const runAccount: Runner<'account'> = async (ctx, input) => {
  // POST /_payctl/accounts keeps no request ids; an email is unique, so a re-run finds it taken
  // and takes the credentials the first run kept.
  const adminKey = needAdminKey(ctx);
  try {
    const account = await createSandboxAccount(ctx.anonymous, { adminKey, email: input.email });
    ctx.knownAccounts.set(account);
    return account;
  } catch (error) {
    const known = ctx.knownAccounts.get(input.email);
    if (error instanceof ApiError && issueOf(error) === 'DUPLICATE_EMAIL') {
      if (known) return known;
      throw new UsageError(`an account with ${input.email} exists but its credentials were not kept on this machine: use another email, or reset the server`);
    }
    throw error;
  }
};

// A consent is stored once per (platform, merchant): granting it again changes nothing.
const runConsent: Runner<'consent'> = async (ctx, input) =>
  grantConsent(ctx.anonymous, { adminKey: needAdminKey(ctx), platformClientId: input.platform_client_id, payerId: input.payer_id });

// The balances endpoint takes payouts' money shape ({currency, value}); the file says currency_code like everywhere else.
const runTopUp: Runner<'top_up'> = (ctx, input) =>
  topUpBalance(ctx.client, { currency: input.currency_code, value: input.value }, { requestId: ctx.requestId('top-up') });

const runOrder: Runner<'order'> = async (ctx, input) => {
  const to = input.to ?? (input.intent === 'AUTHORIZE' ? 'authorized' : 'captured');
  if (to === 'authorized' && input.intent !== 'AUTHORIZE') throw new UsageError('to: authorized needs intent: AUTHORIZE');
  if (to === 'captured' && input.intent !== 'CAPTURE') throw new UsageError('to: captured needs intent: CAPTURE (for an authorization, add a capture step)');
  let order: Order = await createOrder(
    ctx.client,
    { intent: input.intent, amount: input.amount, ...(input.invoice_id ? { invoiceId: input.invoice_id } : {}) },
    { requestId: ctx.requestId('create') },
  );
  if (to !== 'created') order = await approveOrder(ctx.client, order.id, { requestId: ctx.requestId('approve') });
  if (to === 'authorized') order = await authorizeOrder(ctx.client, order.id, { requestId: ctx.requestId('authorize') });
  if (to === 'captured') order = await captureOrder(ctx.client, order.id, { requestId: ctx.requestId('capture') });
  const payments = (order.purchase_units ?? []).flatMap((unit) => [unit.payments]).filter((entry) => entry !== undefined);
  const authorization = payments.flatMap((entry) => entry?.authorizations ?? [])[0];
  const capture = payments.flatMap((entry) => entry?.captures ?? [])[0];
  // The ids a later step usually needs, beside the order as the API answered it.
  return { ...order, ...(authorization ? { authorization_id: authorization.id } : {}), ...(capture ? { capture_id: capture.id } : {}) };
};

const runCapture: Runner<'capture'> = (ctx, { authorization_id: authorizationId, ...body }) =>
  captureAuthorization(ctx.client, authorizationId, body, { requestId: ctx.requestId('capture') });

const runRefund: Runner<'refund'> = (ctx, { capture_id: captureId, ...body }) => refundCapture(ctx.client, captureId, body, { requestId: ctx.requestId('refund') });

const runInvoice: Runner<'invoice'> = async (ctx, input) => {
  const created = await createInvoice(ctx.client, input.invoice, { requestId: ctx.requestId('create') });
  if (input.to !== 'draft') await sendInvoice(ctx.client, created.id, { send_to_recipient: true }, { requestId: ctx.requestId('send') });
  if (input.to === 'paid') {
    const amount = input.payment?.amount ?? (created as { amount?: { currency_code: string; value: string } }).amount;
    await recordPayment(
      ctx.client,
      created.id,
      { method: input.payment?.method ?? 'BANK_TRANSFER', ...(amount ? { amount: { currency_code: amount.currency_code, value: amount.value } } : {}), ...(input.payment?.payment_date ? { payment_date: input.payment.payment_date } : {}), ...(input.payment?.note ? { note: input.payment.note } : {}) },
      { requestId: ctx.requestId('pay') },
    );
  }
  return getInvoice(ctx.client, created.id);
};

/** The seller's moves, in order, that take a new inquiry to each target. */
const DISPUTE_PATHS: Record<(typeof DISPUTE_TARGETS)[number], readonly string[]> = {
  INQUIRY: [],
  CHARGEBACK: ['escalate'],
  PRE_ARBITRATION: ['escalate', 'evidence', 'lose', 'appeal'],
  ARBITRATION: ['escalate', 'evidence', 'lose', 'appeal', 'lose-again', 'appeal-again'],
  RESOLVED: ['accept-claim'],
};

const runDispute: Runner<'dispute'> = async (ctx, input) => {
  let dispute: Dispute = await openSandboxDispute(
    ctx.client,
    { disputed_transaction_id: input.capture_id, reason: input.reason, ...(input.amount ? { amount: input.amount } : {}), ...(input.message ? { message: input.message } : {}) },
    { requestId: ctx.requestId('open') },
  );
  const id = dispute.dispute_id;
  for (const move of DISPUTE_PATHS[input.stage]) {
    const requestId = ctx.requestId(move);
    if (move === 'escalate') dispute = await escalateDispute(ctx.client, id, { note: 'Moved to a claim by a scenario file.' }, { requestId });
    else if (move === 'evidence') dispute = await provideEvidence(ctx.client, id, { evidences: [{ evidence_type: 'OTHER', notes: 'Delivered as described.' }] }, { requestId });
    else if (move.startsWith('lose')) await adjudicateDispute(ctx.client, id, 'BUYER_FAVOR', { requestId });
    else if (move.startsWith('appeal')) dispute = await appealDispute(ctx.client, id, { evidences: [{ evidence_type: 'OTHER', notes: 'Appealed by a scenario file.' }] }, { requestId });
    else if (move === 'accept-claim') dispute = await acceptClaim(ctx.client, id, { note: 'Accepted by a scenario file.' }, { requestId });
  }
  return DISPUTE_PATHS[input.stage].length === 0 ? dispute : getDispute(ctx.client, id);
};

const runPayout: Runner<'payout'> = async (ctx, input) => {
  const header = { sender_batch_id: `scn-${createHash('sha256').update(ctx.requestId('batch')).digest('hex').slice(0, 40)}`, ...(input.sender_batch_header ?? {}) };
  return createPayoutBatch(ctx.client, { sender_batch_header: header, items: input.items } as unknown as Parameters<typeof createPayoutBatch>[1], { requestId: ctx.requestId('create') });
};

const runWebhook: Runner<'webhook'> = (ctx, input) => createWebhook(ctx.client, { url: input.url, eventTypes: input.event_types, requestId: ctx.requestId('create') });

// The clock takes no request ids and only moves forward: the step names where it must be at
// least, so a re-run finds it there and moves nothing.
const runClock: Runner<'clock'> = async (ctx, input) => {
  const target = parseDuration(input.offset);
  const clock = await getClock(ctx.client);
  if (clock.offset_seconds >= target) return clock;
  return advanceClock(ctx.client, { seconds: target - clock.offset_seconds });
};

// A rule the same as an earlier run's is found, not added again.
const runFault: Runner<'fault'> = async (ctx, input) => {
  const rule = { method: input.method.toUpperCase(), path: input.path, after: input.after ?? 0, ...(input.times === undefined ? {} : { times: input.times }), respond: input.respond as FaultResponse };
  const same = (await listFaultRules(ctx.client)).items.find(
    (existing) =>
      existing.method === rule.method &&
      existing.path === rule.path &&
      (existing.after ?? 0) === rule.after &&
      (existing.times ?? undefined) === rule.times &&
      JSON.stringify(sortKeys(existing.respond)) === JSON.stringify(sortKeys(rule.respond)),
  );
  return same ?? addFaultRule(ctx.client, rule, { requestId: ctx.requestId('add') });
};

export const stepRunners: { [K in StepKind]: Runner<K> } = {
  account: runAccount,
  consent: runConsent,
  top_up: runTopUp,
  order: runOrder,
  capture: runCapture,
  refund: runRefund,
  invoice: runInvoice,
  dispute: runDispute,
  payout: runPayout,
  webhook: runWebhook,
  clock: runClock,
  fault: runFault,
};

function issueOf(error: ApiError): string | undefined {
  const details = (error.body as { details?: Array<{ issue?: string }> } | undefined)?.details;
  return details?.[0]?.issue;
}

function sortKeys(value: unknown): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)));
}
