// The local server's control plane under /_payctl: accounts, consents, the account clock, reset.

import { z } from 'zod';
import { call } from './call.js';
import type { ApiClient } from './client.js';

const sandboxAccountSchema = z.looseObject({
  payer_id: z.string(),
  email: z.string(),
  client_id: z.string(),
  client_secret: z.string(),
});
export type SandboxAccount = z.infer<typeof sandboxAccountSchema>;

const consentSchema = z.looseObject({
  platform_client_id: z.string().optional(),
  payer_id: z.string().optional(),
  create_time: z.string().optional(),
});
export type Consent = z.infer<typeof consentSchema>;

const clockSchema = z.looseObject({
  payer_id: z.string(),
  now: z.string(),
  offset_seconds: z.number(),
});
export type SandboxClock = z.infer<typeof clockSchema>;

const resetSchema = z.looseObject({ reset: z.enum(['account', 'all']) });
export type ResetResult = z.infer<typeof resetSchema>;

function adminHeaders(adminKey: string): Record<string, string> {
  return { Authorization: `Bearer ${adminKey}` };
}

/** Creates a merchant account with its own client credentials (admin key). */
export async function createSandboxAccount(
  client: ApiClient,
  options: { adminKey: string; email?: string; requestId?: string },
): Promise<SandboxAccount> {
  return call(client, sandboxAccountSchema, {
    method: 'POST',
    path: '/_payctl/accounts',
    headers: adminHeaders(options.adminKey),
    body: options.email ? { email: options.email } : {},
    requestId: options.requestId,
  });
}

/** Records that a merchant lets a platform act for it (admin key). */
export async function grantConsent(
  client: ApiClient,
  options: { adminKey: string; platformClientId: string; payerId: string; requestId?: string },
): Promise<Consent> {
  return call(client, consentSchema, {
    method: 'POST',
    path: '/_payctl/consents',
    headers: adminHeaders(options.adminKey),
    body: { platform_client_id: options.platformClientId, payer_id: options.payerId },
    requestId: options.requestId,
  });
}

/** The calling account's clock. */
export async function getClock(client: ApiClient): Promise<SandboxClock> {
  return call(client, clockSchema, { method: 'GET', path: '/_payctl/clock' });
}

/** Moves the calling account's clock forward. */
export async function advanceClock(
  client: ApiClient,
  options: { seconds: number; requestId?: string },
): Promise<SandboxClock> {
  return call(client, clockSchema, {
    method: 'POST',
    path: '/_payctl/clock',
    body: { advance_seconds: options.seconds },
    requestId: options.requestId,
  });
}

/** Deletes the calling account's data, or with an admin key every account's. */
export async function resetSandbox(
  client: ApiClient,
  options: { adminKey?: string; requestId?: string } = {},
): Promise<ResetResult> {
  return call(client, resetSchema, {
    method: 'POST',
    path: '/_payctl/reset',
    body: {},
    // The server decides the scope from the credential: the admin key resets every account.
    headers: options.adminKey ? adminHeaders(options.adminKey) : undefined,
    requestId: options.requestId,
  });
}

// --- The request journal (GET/DELETE /_payctl/requests) ---

const journalEntrySchema = z.looseObject({
  id: z.string(),
  time: z.string(),
  account_time: z.string().nullish(),
  account_id: z.string().nullish(),
  method: z.string(),
  path: z.string(),
  query: z.unknown().optional(),
  status: z.number().nullish(),
  duration_ms: z.number().nullish(),
  request_id: z.string().nullish(),
  fault_id: z.string().nullish(),
});
export type JournalEntry = z.infer<typeof journalEntrySchema>;

const journalPageSchema = z.looseObject({ items: z.array(journalEntrySchema), next_before: z.string().nullish() });
export type JournalPage = z.infer<typeof journalPageSchema>;

const journalDetailSchema = journalEntrySchema.extend({
  request_headers: z.unknown().optional(),
  request_body: z.unknown().optional(),
  response_body: z.unknown().optional(),
});
export type JournalDetail = z.infer<typeof journalDetailSchema>;

export interface JournalQuery {
  method?: string;
  path?: string;
  status?: string;
  since?: string;
  requestId?: string;
  pageSize?: number;
  before?: string;
  /** Only entries newer than this id, oldest first (what --follow polls with). */
  after?: string;
}

/** One page of the caller's journal: newest first, or oldest first with `after`. */
export async function listJournal(client: ApiClient, query: JournalQuery = {}): Promise<JournalPage> {
  return call(client, journalPageSchema, {
    method: 'GET',
    path: '/_payctl/requests',
    query: {
      method: query.method,
      path: query.path,
      status: query.status,
      since: query.since,
      request_id: query.requestId,
      page_size: query.pageSize,
      before: query.before,
      after: query.after,
    },
  });
}

/** One journal entry with its headers and both bodies. */
export async function getJournalEntry(client: ApiClient, id: string): Promise<JournalDetail> {
  return call(client, journalDetailSchema, { method: 'GET', path: `/_payctl/requests/${encodeURIComponent(id)}` });
}

/** Empties the caller's journal. */
export async function clearJournal(client: ApiClient): Promise<void> {
  await client.request({ method: 'DELETE', path: '/_payctl/requests' });
}

// --- Fault rules (/_payctl/faults) ---

export type FaultResponse =
  | { status: number; retry_after?: number }
  | { name: string; issue: string }
  | { delay_ms: number }
  | { drop: true };

export interface NewFaultRule {
  method: string;
  path: string;
  after?: number;
  times?: number;
  respond: FaultResponse;
}

const faultRuleSchema = z.looseObject({
  id: z.string(),
  method: z.string(),
  path: z.string(),
  after: z.number().nullish(),
  times: z.number().nullish(),
  respond: z.record(z.string(), z.unknown()),
  matched: z.number().nullish(),
  fired: z.number().nullish(),
  create_time: z.string().nullish(),
});
export type FaultRule = z.infer<typeof faultRuleSchema>;

const faultListSchema = z.looseObject({ items: z.array(faultRuleSchema) });
export type FaultRuleList = z.infer<typeof faultListSchema>;

export async function addFaultRule(client: ApiClient, rule: NewFaultRule, options: { requestId?: string } = {}): Promise<FaultRule> {
  return call(client, faultRuleSchema, { method: 'POST', path: '/_payctl/faults', body: rule, requestId: options.requestId });
}

export async function listFaultRules(client: ApiClient): Promise<FaultRuleList> {
  return call(client, faultListSchema, { method: 'GET', path: '/_payctl/faults' });
}

/** Removes one rule, or every rule of the caller without an id. */
export async function removeFaultRules(client: ApiClient, id?: string): Promise<void> {
  await client.request({ method: 'DELETE', path: id === undefined ? '/_payctl/faults' : `/_payctl/faults/${encodeURIComponent(id)}` });
}

// --- Balances (POST /_payctl/balances: a top-up) ---

export async function topUpBalance(client: ApiClient, amount: { currency: string; value: string }, options: { requestId?: string } = {}): Promise<unknown> {
  const response = await client.request({ method: 'POST', path: '/_payctl/balances', body: amount, requestId: options.requestId });
  return response.body;
}

// --- Dispute decisions (POST /v1/customer/disputes/{id}/adjudicate: the sandbox's stand-in for the service's review) ---

/** Decides a dispute under review for the buyer or the seller, as the service's reviewers would. */
export async function adjudicateDispute(
  client: ApiClient,
  disputeId: string,
  outcome: 'BUYER_FAVOR' | 'SELLER_FAVOR',
  options: { requestId?: string } = {},
): Promise<unknown> {
  const response = await client.request({
    method: 'POST',
    path: `/v1/customer/disputes/${encodeURIComponent(disputeId)}/adjudicate`,
    body: { adjudication_outcome: outcome },
    requestId: options.requestId,
  });
  return response.body;
}
