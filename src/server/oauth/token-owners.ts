// Who owns a bearer token, as the requests of this process learn it: a cache kept current where the
// storage can say what changed (SQLite), and elsewhere a memory of each token that a request may
// start on only if its transaction reads the token again (PostgreSQL).

import type { AccountFacts, ServerDeps } from '../core/deps.js';
import { hashToken } from '../core/secrets.js';
import type { Queryable } from '../db/schema.js';
import * as store from './store.js';

export interface TokenOwner {
  accountId: string;
  appId: string;
  clientId: string;
  account: AccountFacts;
}

interface CachedToken {
  owner: TokenOwner;
  /** Epoch milliseconds (a number compare per request instead of formatting the clock's time). */
  expiresAtMs: number;
  /** The account's clock offset, read with the token. */
  clockOffsetMs: number;
  /** The token's SHA-256 as stored, for a later lookup without hashing again. */
  tokenHash: string;
}

interface TokenCache {
  entries: Map<string, CachedToken>;
  /** The storage's generation('tokens') the entries were read under. */
  version: string;
}

/**
 * Known tokens per server (token -> owner, expiry and the account's clock offset), so a request's
 * auth costs no query and no hash (a SHA-256 per request shows in a GET's profile). Only where the storage
 * keeps process caches (SQLite), and emptied whenever anything a token lookup reads may have
 * changed, in any process (`generation('tokens')`: a token deleted, an app's credentials changed,
 * a clock moved, the account's e-mail, identity status or count of fault rules changed: the
 * `AccountFacts` kept with the owner). The trade-off: this process's memory holds up to 10,000 live bearer tokens in
 * the clear (the database holds only their hashes); tokens already expired when looked up are not kept.
 */
const tokenCaches = new WeakMap<ServerDeps, TokenCache>();
/**
 * Elsewhere (PostgreSQL: other processes write without telling this one), what each token looked
 * like when this process last read it. Never an answer by itself: a request may start on it only if
 * its transaction reads the token again before it commits (`sendTokenCheck`). Same bound, same
 * trade-off.
 */
const seenTokens = new WeakMap<ServerDeps, Map<string, CachedToken>>();
const TOKEN_CACHE_SIZE = 10_000;

/** How this process's requests came by their tokens' owners (`tokenStats`). */
export interface TokenStats {
  /** Read from the database on their own (before the request went on, or to confirm or refresh its caller). */
  lookups: number;
  /** Read again in the request's transaction and found as remembered. */
  confirmedInTransaction: number;
  /** Read again in the request's transaction and found gone or changed: the request ran again. */
  changedInTransaction: number;
}
const stats = new WeakMap<ServerDeps, TokenStats>();

/** This server's counts of token lookups and checks, since it started. */
export function tokenStats(deps: ServerDeps): TokenStats {
  let counted = stats.get(deps);
  if (!counted) stats.set(deps, (counted = { lookups: 0, confirmedInTransaction: 0, changedInTransaction: 0 }));
  return counted;
}

/** The cache holds nothing for this token: the database must be asked. */
export const NOT_CACHED = Symbol('not cached');

const tokenIsLive = (deps: ServerDeps, token: CachedToken): boolean => token.expiresAtMs > deps.clock.systemNow().getTime();

const tokensVersion = (deps: ServerDeps): string | undefined =>
  deps.storage.processCaches ? deps.storage.generation?.('tokens') : undefined;

/** The server's token cache, emptied if what it was read from changed; undefined where there is none. */
function tokenCacheOf(deps: ServerDeps): Map<string, CachedToken> | undefined {
  const version = tokensVersion(deps);
  if (version === undefined) return undefined;
  let cache = tokenCaches.get(deps);
  if (!cache) tokenCaches.set(deps, (cache = { entries: new Map(), version }));
  if (cache.version !== version) {
    cache.entries.clear();
    cache.version = version;
  }
  return cache.entries;
}

function seenTokensOf(deps: ServerDeps): Map<string, CachedToken> {
  let seen = seenTokens.get(deps);
  if (!seen) seenTokens.set(deps, (seen = new Map()));
  return seen;
}

function remember(cache: Map<string, CachedToken>, accessToken: string, entry: CachedToken): void {
  if (cache.size >= TOKEN_CACHE_SIZE && !cache.has(accessToken)) cache.clear();
  cache.set(accessToken, entry);
}

/** The owner of a live token; its account's clock takes the offset read with it. */
function ownerOf(deps: ServerDeps, token: CachedToken): TokenOwner {
  deps.clock.setOffset(token.owner.accountId, token.clockOffsetMs);
  return token.owner;
}

type TokenLookupRow = NonNullable<Awaited<ReturnType<typeof store.findTokenWithApp>>>;

function entryOf(row: TokenLookupRow, tokenHash: string): CachedToken {
  return {
    owner: {
      accountId: row.account_id,
      appId: row.app_id,
      clientId: row.client_id,
      account: { email: row.email, kycStatus: row.kyc_status, hasFaultRules: row.fault_rule_count > 0n },
    },
    expiresAtMs: Date.parse(row.expires_at),
    clockOffsetMs: Number(row.clock_offset_ms),
    tokenHash,
  };
}

/** Whether two reads of one token found the same owner, expiry and account facts. */
function sameOwner(a: CachedToken, b: CachedToken): boolean {
  const [x, y] = [a.owner, b.owner];
  return (
    a.expiresAtMs === b.expiresAtMs &&
    x.accountId === y.accountId &&
    x.appId === y.appId &&
    x.clientId === y.clientId &&
    x.account.email === y.account.email &&
    x.account.kycStatus === y.account.kycStatus &&
    x.account.hasFaultRules === y.account.hasFaultRules
  );
}

/**
 * The owner of a token the cache knows (undefined once it has expired), without a query or a
 * promise: the common case of every authenticated request on SQLite.
 */
export function cachedTokenOwner(deps: ServerDeps, accessToken: string): TokenOwner | undefined | typeof NOT_CACHED {
  const cached = tokenCacheOf(deps)?.get(accessToken);
  if (!cached) return NOT_CACHED;
  // Expiry is judged on every use, in real time (a token outlives no more than its lifetime).
  return tokenIsLive(deps, cached) ? ownerOf(deps, cached) : undefined;
}

/** The owner of a valid, unexpired token, judged in real time (not on the account's clock). */
export async function findTokenOwner(deps: ServerDeps, accessToken: string): Promise<TokenOwner | undefined> {
  const known = cachedTokenOwner(deps, accessToken);
  if (known !== NOT_CACHED) return known;
  const version = tokensVersion(deps);
  const tokenHash = hashToken(accessToken);
  tokenStats(deps).lookups += 1;
  const row = await store.findTokenWithApp(deps.db, tokenHash);
  const entry = row === undefined ? undefined : entryOf(row, tokenHash);
  if (entry === undefined || !tokenIsLive(deps, entry)) {
    seenTokens.get(deps)?.delete(accessToken);
    return undefined;
  }
  const cache = tokenCacheOf(deps);
  if (cache === undefined) remember(seenTokensOf(deps), accessToken, entry);
  // Kept only if nothing a lookup reads changed while the query ran.
  else if (version !== undefined && version === tokensVersion(deps)) remember(cache, accessToken, entry);
  return ownerOf(deps, entry);
}

/** A token as this process last read it, to be read again in the request's transaction (`sendTokenCheck`). */
export interface TokenCheck {
  readonly accessToken: string;
  readonly seen: CachedToken;
}

/**
 * Where the cache cannot be kept current (PostgreSQL), the owner of a live token as this process
 * last read it, and the check its request must pass before it commits or answers; undefined when
 * this process has not read it, or it has expired. The account's clock is left as this process
 * last read it, from whichever lookup (the check compares it too).
 */
export function unconfirmedTokenOwner(deps: ServerDeps, accessToken: string): { owner: TokenOwner; check: TokenCheck } | undefined {
  if (deps.storage.processCaches) return undefined;
  const seen = seenTokens.get(deps)?.get(accessToken);
  if (seen === undefined || !tokenIsLive(deps, seen)) return undefined;
  return { owner: seen.owner, check: { accessToken, seen } };
}

/**
 * Reads the checked token again inside `trx`, sent ahead (on PostgreSQL it goes with the
 * transaction's next statement: no round trip of its own). The verdict, read before the transaction
 * commits, given the clock offset the request ran on: true when the database still has the token
 * live, with the owner, expiry and account facts the check saw and that clock; false otherwise, and
 * the token is forgotten.
 */
export async function sendTokenCheck(deps: ServerDeps, trx: Queryable, check: TokenCheck): Promise<(clockOffsetMs: number) => Promise<boolean>> {
  const sent = await store.sendTokenWithApp(trx, check.seen.tokenHash);
  return async (clockOffsetMs) => {
    const row = (sent.answered ?? (await sent.answer())).rows[0];
    const now = row === undefined ? undefined : entryOf(row, check.seen.tokenHash);
    if (now !== undefined && tokenIsLive(deps, now) && sameOwner(now, check.seen) && now.clockOffsetMs === clockOffsetMs) {
      tokenStats(deps).confirmedInTransaction += 1;
      return true;
    }
    tokenStats(deps).changedInTransaction += 1;
    const seen = seenTokens.get(deps);
    if (seen?.get(check.accessToken) === check.seen) seen.delete(check.accessToken);
    return false;
  };
}
