// The local server's control plane under /_payctl: accounts, consents, the account clock, reset.

import { z } from 'zod';
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
  const response = await client.request({
    method: 'POST',
    path: '/_payctl/accounts',
    headers: adminHeaders(options.adminKey),
    body: options.email ? { email: options.email } : {},
    ...(options.requestId ? { requestId: options.requestId } : {}),
  });
  return sandboxAccountSchema.parse(response.body);
}

/** Records that a merchant lets a platform act for it (admin key). */
export async function grantConsent(
  client: ApiClient,
  options: { adminKey: string; platformClientId: string; payerId: string; requestId?: string },
): Promise<Consent> {
  const response = await client.request({
    method: 'POST',
    path: '/_payctl/consents',
    headers: adminHeaders(options.adminKey),
    body: { platform_client_id: options.platformClientId, payer_id: options.payerId },
    ...(options.requestId ? { requestId: options.requestId } : {}),
  });
  return consentSchema.parse(response.body);
}

/** The calling account's clock. */
export async function getClock(client: ApiClient): Promise<SandboxClock> {
  const response = await client.request({ method: 'GET', path: '/_payctl/clock' });
  return clockSchema.parse(response.body);
}

/** Moves the calling account's clock forward. */
export async function advanceClock(
  client: ApiClient,
  options: { seconds: number; requestId?: string },
): Promise<SandboxClock> {
  const response = await client.request({
    method: 'POST',
    path: '/_payctl/clock',
    body: { advance_seconds: options.seconds },
    ...(options.requestId ? { requestId: options.requestId } : {}),
  });
  return clockSchema.parse(response.body);
}

/** Deletes the calling account's data, or with an admin key every account's. */
export async function resetSandbox(
  client: ApiClient,
  options: { adminKey?: string; requestId?: string } = {},
): Promise<ResetResult> {
  const response = await client.request({
    method: 'POST',
    path: '/_payctl/reset',
    body: {},
    // The server decides the scope from the credential: the admin key resets every account.
    ...(options.adminKey ? { headers: adminHeaders(options.adminKey) } : {}),
    ...(options.requestId ? { requestId: options.requestId } : {}),
  });
  return resetSchema.parse(response.body);
}
