// Each account's earliest open expiration time, kept in memory so that a payments request only
// reads the database for expiry when an authorization may be due.

import type { ServerDeps } from '../core/deps.js';
import { OPEN_AUTHORIZATION_STATUSES } from './states.js';
import { earliestOpenExpiry } from './store.js';

/**
 * What each server knows of each account's earliest open expiration time (null: none), so that a
 * request only touches the database for expiry when something may be due. `version` moves on each
 * new authorization, so a recount that raced with one is not kept.
 */
interface ExpiryCache {
  next: Map<string, string | null>;
  version: Map<string, number>;
}
const caches = new WeakMap<ServerDeps, ExpiryCache>();

function cacheOf(deps: ServerDeps): ExpiryCache {
  let cache = caches.get(deps);
  if (!cache) {
    cache = { next: new Map(), version: new Map() };
    caches.set(deps, cache);
  }
  return cache;
}

/** Called for each new authorization (in its transaction; a rollback only makes the cache early). */
export function noteExpiry(deps: ServerDeps, accountId: string, expirationTime: string): void {
  const cache = cacheOf(deps);
  cache.version.set(accountId, (cache.version.get(accountId) ?? 0) + 1);
  const known = cache.next.get(accountId);
  if (known === undefined) return;
  if (known === null || expirationTime < known) cache.next.set(accountId, expirationTime);
}

export function forgetExpiries(deps: ServerDeps, accountId: string): void {
  const cache = cacheOf(deps);
  cache.next.delete(accountId);
  cache.version.set(accountId, (cache.version.get(accountId) ?? 0) + 1);
}

export async function recountNextExpiry(deps: ServerDeps, accountId: string): Promise<string | null> {
  const cache = cacheOf(deps);
  const version = cache.version.get(accountId) ?? 0;
  const next = await earliestOpenExpiry(deps.db, accountId, OPEN_AUTHORIZATION_STATUSES);
  if ((cache.version.get(accountId) ?? 0) === version) cache.next.set(accountId, next);
  else cache.next.delete(accountId);
  return next;
}

/** undefined: not known yet (read it with recountNextExpiry). */
export function knownNextExpiry(deps: ServerDeps, accountId: string): string | null | undefined {
  return cacheOf(deps).next.get(accountId);
}
