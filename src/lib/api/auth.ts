// Token and identity endpoints: who the resolved credentials are, and fresh tokens for scripts.

import { z } from 'zod';
import type { ApiClient } from './client.js';
import { ApiError } from './errors.js';
import type { TokenResponse } from './types.js';

const whoamiSchema = z.looseObject({
  payer_id: z.string(),
  email: z.string().nullable().optional(),
  client_id: z.string().optional(),
  app_id: z.string().optional(),
});
export type Whoami = z.infer<typeof whoamiSchema>;

export interface AuthStatus {
  profile: string;
  base_url: string;
  client_id: string | null;
  app_id: string | null;
  merchant: { payer_id: string; email: string | null } | null;
  token_expires_at: string;
}

/** A new access token, straight from `POST /v1/oauth2/token` (and cached for later commands). */
export async function issueAccessToken(client: ApiClient): Promise<TokenResponse> {
  return client.fetchToken();
}

/** Checks credentials by asking for a fresh token; returns the app id the service assigned. */
export async function verifyCredentials(client: ApiClient): Promise<{ app_id: string; scope: string }> {
  const token = await client.fetchToken();
  return { app_id: token.app_id, scope: token.scope };
}

/** The merchant behind the credentials, or null when the server has no `/_payctl/whoami`. */
export async function whoami(client: ApiClient): Promise<Whoami | null> {
  try {
    const response = await client.request({ method: 'GET', path: '/_payctl/whoami' });
    return whoamiSchema.parse(response.body);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}

/** Everything `payctl auth status` shows; fetches a token when none is cached. */
export async function authStatus(client: ApiClient, profile: string): Promise<AuthStatus> {
  const token = await client.getToken();
  const merchant = await whoami(client);
  return {
    profile,
    base_url: client.baseUrl,
    client_id: client.clientId ?? null,
    app_id: token.app_id || merchant?.app_id || null,
    merchant: merchant ? { payer_id: merchant.payer_id, email: merchant.email ?? null } : null,
    token_expires_at: token.expires_at,
  };
}
