// Wire shapes the CLI reads from the service, with the schemas that check them at the boundary.

import { z } from 'zod';

export const tokenResponseSchema = z.looseObject({
  scope: z.string().default(''),
  access_token: z.string().min(1),
  token_type: z.string().default('Bearer'),
  app_id: z.string().default(''),
  expires_in: z.number().int().positive(),
  nonce: z.string().optional(),
});
export type TokenResponse = z.infer<typeof tokenResponseSchema>;

/** What is kept between runs for one (base URL, client id). */
export const cachedTokenSchema = z.object({
  access_token: z.string().min(1),
  /** ISO 8601 instant after which the service refuses the token. */
  expires_at: z.string(),
  app_id: z.string(),
  scope: z.string(),
  /** Fingerprint of the secret the token was issued for: a token is not reused with another secret. */
  secret_fingerprint: z.string().optional(),
});
export type CachedToken = z.infer<typeof cachedTokenSchema>;

/** Storage for access tokens; `get` only answers tokens that are still worth using. */
export interface TokenCache {
  get(baseUrl: string, clientId: string): CachedToken | undefined;
  set(baseUrl: string, clientId: string, token: CachedToken): void;
  delete(baseUrl: string, clientId: string): void;
}

/** Tokens are dropped this long before they expire so that a request never races the expiry. */
export const TOKEN_EXPIRY_MARGIN_MS = 60_000;

export function isTokenUsable(token: CachedToken, now: number = Date.now()): boolean {
  const expiresAt = Date.parse(token.expires_at);
  return Number.isFinite(expiresAt) && expiresAt - TOKEN_EXPIRY_MARGIN_MS > now;
}

/** A cache that lives as long as the process: the default when nothing is persisted. */
export function memoryTokenCache(): TokenCache {
  const tokens = new Map<string, CachedToken>();
  const key = (baseUrl: string, clientId: string): string => `${baseUrl}\u0000${clientId}`;
  return {
    get: (baseUrl, clientId) => {
      const token = tokens.get(key(baseUrl, clientId));
      return token && isTokenUsable(token) ? token : undefined;
    },
    set: (baseUrl, clientId, token) => void tokens.set(key(baseUrl, clientId), token),
    delete: (baseUrl, clientId) => void tokens.delete(key(baseUrl, clientId)),
  };
}

export const errorDetailSchema = z.looseObject({
  field: z.string().optional(),
  value: z.unknown().optional(),
  location: z.string().optional(),
  issue: z.string().optional(),
  description: z.string().optional(),
});

/** When a resource was created and last changed (ISO 8601), spread into the schemas that carry both. */
export const timestamps = { create_time: z.string().optional(), update_time: z.string().optional() };

/** Money as orders, payments, invoicing, disputes and reporting write it (payouts say `currency`). */
export const moneySchema = z.looseObject({ currency_code: z.string(), value: z.string() });

export const linkSchema = z.looseObject({
  href: z.string(),
  rel: z.string(),
  method: z.string().optional(),
});

/** The service's error body. */
export const serviceErrorBodySchema = z.looseObject({
  name: z.string(),
  message: z.string(),
  debug_id: z.string().optional(),
  details: z.array(errorDetailSchema).optional(),
  links: z.array(linkSchema).optional(),
});
export type ServiceErrorBody = z.infer<typeof serviceErrorBodySchema>;

/** The OAuth-style error the token endpoint answers with. */
export const oauthErrorBodySchema = z.looseObject({
  error: z.string(),
  error_description: z.string().optional(),
});
