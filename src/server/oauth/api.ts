// The oauth domain (merchant accounts, apps, tokens, consents) as the others see it: one
// interface, built once in domains.ts and reached through `deps.domains.oauth`.

import type { ServerDeps } from '../core/deps.js';
import type { Queryable } from '../db/schema.js';
import { createMerchantAccount, type AccountCredentials, type CreateAccountInput } from './service.js';
import * as store from './store.js';
import type { AccountRow, AppRow } from './store.js';

export interface OauthApi {
  findAccount(db: Queryable, accountId: string): Promise<AccountRow | undefined>;
  findAccountByEmail(db: Queryable, email: string): Promise<AccountRow | undefined>;
  listAccounts(db: Queryable): Promise<AccountRow[]>;
  /** Creates a merchant account with one app in the caller's transaction (runs the onAccountCreated hooks). */
  createMerchantAccount(deps: ServerDeps, db: Queryable, input: CreateAccountInput): Promise<AccountCredentials>;
  /** PENDING holds the account's new captures for identity verification. */
  setKycStatus(db: Queryable, accountId: string, status: 'PENDING' | 'VERIFIED'): Promise<void>;
  findAppByClientId(db: Queryable, clientId: string): Promise<AppRow | undefined>;
  /** A platform app may act for the payer from now on. */
  insertConsent(db: Queryable, platformClientId: string, payerId: string, now: string): Promise<void>;
  /** The account's clock offset in milliseconds; undefined for an unknown account. */
  findClockOffset(db: Queryable, accountId: string): Promise<bigint | undefined>;
  /** Moves the account's clock by `byMs` in one statement; the new offset, undefined for an unknown account. */
  addClockOffset(db: Queryable, accountId: string, byMs: bigint): Promise<bigint | undefined>;
  setClockOffset(db: Queryable, accountId: string, offsetMs: bigint): Promise<void>;
  /**
   * Moves the account's count of fault rules by `delta`, in the transaction that adds or deletes
   * them: the token lookup reads it with every caller.
   */
  addFaultRules(db: Queryable, accountId: string, delta: bigint): Promise<void>;
}

export function createOauthApi(): OauthApi {
  return {
    findAccount: store.findAccount,
    findAccountByEmail: store.findAccountByEmail,
    listAccounts: store.listAccounts,
    createMerchantAccount,
    setKycStatus: store.setKycStatus,
    findAppByClientId: store.findAppByClientId,
    insertConsent: store.insertConsent,
    findClockOffset: store.findClockOffset,
    addClockOffset: store.addClockOffset,
    setClockOffset: store.setClockOffset,
    addFaultRules: store.addFaultRules,
  };
}

export type { AccountCredentials, AccountRow };

// The authenticator (http/auth.ts), shared plumbing run before any domain's route, looks callers up here.
export {
  NOT_CACHED,
  cachedTokenOwner,
  findTokenOwner,
  sendTokenCheck,
  tokenStats,
  unconfirmedTokenOwner,
  type TokenCheck,
  type TokenOwner,
} from './token-owners.js';
export { consentedClockOffset } from './store.js';
