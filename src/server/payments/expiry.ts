// Authorization expiry: a scheduler job over every account, and the same sweep before each request.

import type { FastifyRequest } from 'fastify';
import { isoSeconds } from '../core/clock.js';
import type { ServerDeps, ServiceContext } from '../core/deps.js';
import { callerOf } from '../http/auth.js';
import { requestBaseUrl } from '../http/links.js';
import { listAccounts } from '../oauth/store.js';
import { expireDueAuthorizations } from './authorizations.js';
import { OPEN_AUTHORIZATION_STATUSES } from './states.js';
import { forgetExpiries, knownNextExpiry, recountNextExpiry } from './expiry-cache.js';

/** Most batches (of up to DUE_BATCH) one sweep handles; what is left waits for the next one. */
const MAX_BATCHES = 100;
/** The most authorizations store.dueAuthorizations picks at once. */
const DUE_BATCH = 500;

/**
 * Voids the account's expired authorizations, a batch per transaction. The due rows are picked and
 * locked inside it (`FOR UPDATE SKIP LOCKED`), so servers sweeping side by side void each once.
 */
export async function sweepAccount(deps: ServerDeps, accountId: string, baseUrl: string): Promise<number> {
  let total = 0;
  for (let batch = 0; batch < MAX_BATCHES; batch += 1) {
    const now = deps.clock.now(accountId);
    const voided = await deps.storage.transaction({ name: 'payments.expiry' }, (trx) => {
      const ctx: ServiceContext = { db: trx, deps, accountId, now, baseUrl };
      return expireDueAuthorizations(ctx);
    });
    total += voided;
    if (voided < DUE_BATCH) break;
  }
  return total;
}

const notYetDue = (deps: ServerDeps, accountId: string, next: string | null): boolean =>
  next === null || next > isoSeconds(deps.clock.now(accountId));

/**
 * True when the account is known, without a query, to have no authorization due to expire: a
 * request's sweep would do nothing. False when it would sweep or does not know yet.
 */
export function noExpiryDue(deps: ServerDeps, accountId: string): boolean {
  const known = knownNextExpiry(deps, accountId);
  return known !== undefined && notYetDue(deps, accountId, known);
}

/** Sweeps the account if its earliest open expiration time has passed on its clock. */
async function sweepIfDue(deps: ServerDeps, accountId: string, baseUrl: string): Promise<void> {
  const known = knownNextExpiry(deps, accountId);
  const next = known === undefined ? await recountNextExpiry(deps, accountId) : known;
  if (notYetDue(deps, accountId, next)) return;
  await sweepAccount(deps, accountId, baseUrl);
  await recountNextExpiry(deps, accountId);
}

/** Before a payments request: expiry must not depend on when the job last ran. */
export async function sweepForRequest(deps: ServerDeps, request: FastifyRequest): Promise<void> {
  const accountId = callerOf(request).accountId;
  await sweepIfDue(deps, accountId, requestBaseUrl(deps, request));
}

export function registerExpiryJob(deps: ServerDeps): void {
  deps.hooks.onAccountReset.push(async (_db, accountId) => forgetExpiries(deps, accountId));
  deps.scheduler.register('payments.expire-authorizations', async () => {
    for (const account of await listAccounts(deps.db)) await sweepIfDue(deps, account.id, deps.publicUrl());
  });
}
