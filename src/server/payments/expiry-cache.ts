// Each account's earliest open expiration time, kept in memory so that a payments request only
// reads the database for expiry when an authorization may be due.

import type { ServerDeps } from '../core/deps.js';
import { OPEN_AUTHORIZATION_STATUSES } from './states.js';
import { earliestOpenExpiry } from './store.js';

/**
 * What each server knows of each account's earliest open expiration time (null: none), so that a
 * request only touches the database for expiry when something may be due. `version` moves on each
 * new authorization made here, so a recount that raced with one is not kept; `elsewhere` is the
 * storage's marker of other processes' commits when the cache was last trusted (another replica's
 * authorization empties it). Off where the storage keeps no process caches (PostgreSQL): then every
 * payments request reads the earliest expiry (one indexed query).
 */
interface ExpiryCache {
  next: Map<string, string | null>;
  version: Map<string, number>;
  elsewhere: string | undefined;
}
const caches = new WeakMap<ServerDeps, ExpiryCache>();

/** The server's cache, emptied if another process committed since; undefined where there is none. */
function cacheOf(deps: ServerDeps): ExpiryCache | undefined {
  const elsewhere = deps.storage.processCaches ? deps.storage.generation?.('elsewhere') : undefined;
  if (elsewhere === undefined) return undefined;
  let cache = caches.get(deps);
  if (!cache) caches.set(deps, (cache = { next: new Map(), version: new Map(), elsewhere }));
  if (cache.elsewhere !== elsewhere) {
    cache.next.clear();
    cache.elsewhere = elsewhere;
  }
  return cache;
}

/** Called for each new authorization (in its transaction; a rollback only makes the cache early). */
export function noteExpiry(deps: ServerDeps, accountId: string, expirationTime: string): void {
  const cache = cacheOf(deps);
  if (!cache) return;
  cache.version.set(accountId, (cache.version.get(accountId) ?? 0) + 1);
  const known = cache.next.get(accountId);
  if (known === undefined) return;
  if (known === null || expirationTime < known) cache.next.set(accountId, expirationTime);
}

export function forgetExpiries(deps: ServerDeps, accountId: string): void {
  const cache = cacheOf(deps);
  if (!cache) return;
  cache.next.delete(accountId);
  cache.version.set(accountId, (cache.version.get(accountId) ?? 0) + 1);
}

export async function recountNextExpiry(deps: ServerDeps, accountId: string): Promise<string | null> {
  const before = cacheOf(deps);
  const version = before?.version.get(accountId) ?? 0;
  const elsewhere = before?.elsewhere;
  const next = await earliestOpenExpiry(deps.db, accountId, OPEN_AUTHORIZATION_STATUSES);
  const cache = cacheOf(deps);
  if (!cache) return next;
  // Kept only if no authorization was made here, nor anything committed elsewhere, while it was read.
  if ((cache.version.get(accountId) ?? 0) === version && cache.elsewhere === elsewhere) cache.next.set(accountId, next);
  else cache.next.delete(accountId);
  return next;
}

/** undefined: not known (read it with recountNextExpiry). */
export function knownNextExpiry(deps: ServerDeps, accountId: string): string | null | undefined {
  return cacheOf(deps)?.next.get(accountId);
}
