// Merchant accounts, their apps, and OAuth2 client-credentials tokens.

import type { Queryable } from '../db/schema.js';
import { addSeconds, isoMillis, isoSeconds } from '../core/clock.js';
import type { ServerDeps } from '../core/deps.js';
import { payerId, secretToken, upperId } from '../core/ids.js';
import { hashGeneratedSecret, hashSecret, hashToken, verifySecret } from '../core/secrets.js';
import * as store from './store.js';

/** The scopes every app is granted: the server does not restrict operations by scope. */
export const GRANTED_SCOPES = [
  'https://uri.paypal.com/services/payments/payment/authcapture',
  'https://uri.paypal.com/services/payments/refund',
  'https://uri.paypal.com/services/payments/payment',
  'https://uri.paypal.com/services/invoicing/invoices/readwrite',
  'https://uri.paypal.com/services/disputes/read-seller',
  'https://uri.paypal.com/services/disputes/update-seller',
  'https://uri.paypal.com/payments/payouts',
  'https://uri.paypal.com/services/applications/webhooks',
].join(' ');

export interface AccountCredentials {
  payer_id: string;
  email: string;
  client_id: string;
  client_secret: string;
}

export const newClientId = (): string => `A${secretToken(60)}`;
export const newClientSecret = (): string => `E${secretToken(60)}`;

export interface CreateAccountInput {
  email?: string;
  clientId?: string;
  clientSecret?: string;
  /** The secret's hash when the caller already computed it (scrypt is slow). */
  secretHash?: string;
  isDefault?: boolean;
}

/** Creates a merchant account with one app, inside the caller's transaction. */
export async function createMerchantAccount(
  deps: ServerDeps,
  db: Queryable,
  input: CreateAccountInput,
): Promise<AccountCredentials> {
  const id = payerId(deps.ids);
  const now = isoSeconds(deps.clock.systemNow());
  const email = input.email ?? `merchant-${id.toLowerCase()}@example.com`;
  const clientId = input.clientId ?? newClientId();
  const clientSecret = input.clientSecret ?? newClientSecret();
  await store.insertAccount(db, {
    id,
    email,
    is_default: input.isDefault ? 1n : 0n,
    clock_offset_ms: 0n,
    kyc_status: 'VERIFIED',
    created_at: now,
  });
  await store.insertApp(db, {
    id: `APP-${upperId(deps.ids, 17)}`,
    account_id: id,
    name: input.isDefault ? 'Default app' : 'App',
    client_id: clientId,
    secret_hash: input.secretHash ?? (input.clientSecret === undefined ? hashGeneratedSecret(clientSecret) : await hashSecret(clientSecret)),
    is_default: 1n,
    created_at: now,
  });
  for (const hook of deps.hooks.onAccountCreated) await hook(db, id);
  return { payer_id: id, email, client_id: clientId, client_secret: clientSecret };
}

export interface TokenResponse {
  scope: string;
  access_token: string;
  token_type: 'Bearer';
  app_id: string;
  expires_in: number;
  nonce: string;
}

/** Checks client credentials and issues a token; `undefined` when the credentials are wrong. */
export async function issueToken(
  deps: ServerDeps,
  clientId: string,
  clientSecret: string,
): Promise<TokenResponse | undefined> {
  const app = await store.findAppByClientId(deps.db, clientId);
  // Hash even for unknown ids so that a wrong id costs as much as a wrong chosen (scrypt) secret. A
  // wrong secret for an app whose secret payctl generated is answered in microseconds (SHA-256), so
  // timing can tell that such a client id exists: client ids are not secrets, the 480-bit secret is.
  const stored = app?.secret_hash ?? 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
  const valid = await verifySecret(clientSecret, stored);
  if (!app || !valid) return undefined;
  // A token lives its lifetime in real time: clients cache it by wall-clock time, so no sandbox
  // control (clock moves, resets) may expire, revive or lengthen it. Business time stays per account.
  const now = deps.clock.systemNow();
  const accessToken = `A21AA${secretToken(32)}`;
  const lifetime = deps.config.tokenLifetimeSeconds;
  await deps.storage.transaction({ name: 'oauth.token' }, async (trx) => {
    await store.deleteExpiredTokens(trx, app.account_id, isoMillis(now));
    await store.insertToken(trx, {
      token_hash: hashToken(accessToken),
      app_id: app.id,
      account_id: app.account_id,
      scope: GRANTED_SCOPES,
      expires_at: isoMillis(addSeconds(now, lifetime)),
      created_at: isoMillis(now),
    });
  });
  return {
    scope: GRANTED_SCOPES,
    access_token: accessToken,
    token_type: 'Bearer',
    app_id: app.id,
    expires_in: lifetime,
    nonce: `${isoSeconds(now)}${secretToken(24)}`,
  };
}

/** Every account's clock offset as the database has it, for background jobs (run first in each pass). */
export async function loadClockOffsets(deps: ServerDeps): Promise<void> {
  for (const account of await store.listAccounts(deps.db)) deps.clock.setOffset(account.id, Number(account.clock_offset_ms));
}
