// Authorization expiry, written: a scheduler job over every account (run on its interval and when a
// clock moves). Reads and changes do not wait for it: they see an authorization past its expiry as
// expired already (present.ts authorizationAt), so no request has to sweep.

import { isoSeconds } from '../core/clock.js';
import type { ServerDeps, ServiceContext } from '../core/deps.js';
import { listAccounts } from '../oauth/store.js';
import { expireDueAuthorizations } from './authorizations.js';
import { OPEN_AUTHORIZATION_STATUSES } from './states.js';
import { earliestOpenExpiry } from './store.js';

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

/** Sweeps the account if its earliest open expiration time has passed on its clock (one indexed read otherwise). */
async function sweepIfDue(deps: ServerDeps, accountId: string, baseUrl: string): Promise<void> {
  const next = await earliestOpenExpiry(deps.db, accountId, OPEN_AUTHORIZATION_STATUSES);
  if (next === null || next > isoSeconds(deps.clock.now(accountId))) return;
  await sweepAccount(deps, accountId, baseUrl);
}

export function registerExpiryJob(deps: ServerDeps): void {
  deps.scheduler.register('payments.expire-authorizations', async () => {
    for (const account of await listAccounts(deps.db)) await sweepIfDue(deps, account.id, deps.publicUrl());
  });
}
