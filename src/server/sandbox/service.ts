// The control plane's rules: accounts, consents, clocks and resets of the local server.

import { isoSeconds } from '../core/clock.js';
import { writePendingEvents } from '../core/events.js';
import type { ServerDeps, ServiceContext } from '../core/deps.js';
import type { Queryable } from '../db/schema.js';
import { serviceError, notFound } from '../http/errors.js';
import { deleteLedger } from '../ledger/store.js';
import type { AccountCredentials } from '../oauth/api.js';
import type { ConsentGrant, KycStatusView, ResetResult, Whoami } from './types.js';

export async function createAccount(deps: ServerDeps, email: string | undefined): Promise<AccountCredentials> {
  return deps.storage.transaction({ name: 'sandbox.create-account' }, async (trx) => {
    if (email !== undefined && (await deps.domains.oauth.findAccountByEmail(trx, email))) {
      throw serviceError('UNPROCESSABLE_ENTITY', 'DUPLICATE_EMAIL', 'An account with this e-mail address already exists.', {
        field: '/email',
        value: email,
      });
    }
    return deps.domains.oauth.createMerchantAccount(deps, trx, email === undefined ? {} : { email });
  });
}

export async function grantConsent(deps: ServerDeps, platformClientId: string, payerId: string): Promise<ConsentGrant> {
  const now = isoSeconds(deps.clock.systemNow());
  await deps.storage.transaction({ name: 'sandbox.grant-consent' }, async (trx) => {
    if (!(await deps.domains.oauth.findAppByClientId(trx, platformClientId))) {
      throw serviceError('UNPROCESSABLE_ENTITY', 'UNKNOWN_CLIENT_ID', 'No app has this client id.', {
        field: '/platform_client_id',
        value: platformClientId,
      });
    }
    if (!(await deps.domains.oauth.findAccount(trx, payerId))) throw notFound('payer', payerId, 'body');
    await deps.domains.oauth.insertConsent(trx, platformClientId, payerId, now);
  });
  return { platform_client_id: platformClientId, payer_id: payerId, create_time: now };
}

export interface ClockView {
  payer_id: string;
  now: string;
  offset_seconds: number;
}

function viewOf(deps: ServerDeps, accountId: string, offsetMs: bigint): ClockView {
  const offset = Number(offsetMs);
  return {
    payer_id: accountId,
    now: new Date(deps.clock.systemNow().getTime() + offset).toISOString(),
    offset_seconds: Math.floor(offset / 1000),
  };
}

/** The account's clock as the database has it (any replica may have moved it). */
export async function clockView(deps: ServerDeps, accountId: string): Promise<ClockView> {
  const offset = await deps.domains.oauth.findClockOffset(deps.db, accountId);
  if (offset === undefined) throw notFound('payer', accountId);
  deps.clock.setOffset(accountId, Number(offset));
  return viewOf(deps, accountId, offset);
}

/** Moves an account's clock forward, then lets every time-driven job catch up before answering. */
export async function advanceClock(deps: ServerDeps, accountId: string, seconds: number): Promise<ClockView> {
  // One relative update: two advances at once, on any replicas, both count.
  const offset = await deps.storage.transaction({ name: 'sandbox.advance-clock' }, (trx) =>
    deps.domains.oauth.addClockOffset(trx, accountId, BigInt(seconds) * 1000n),
  );
  if (offset === undefined) throw notFound('payer', accountId);
  deps.clock.setOffset(accountId, Number(offset));
  await deps.scheduler.runAll();
  return viewOf(deps, accountId, offset);
}

async function resetOne(deps: ServerDeps, db: Queryable, accountId: string): Promise<void> {
  for (const hook of [...deps.hooks.onAccountReset].reverse()) await hook(db, accountId);
  await db.deleteFrom('idempotency_keys').where('account_id', '=', accountId).execute();
  await writePendingEvents(db);
  await db.deleteFrom('events').where('account_id', '=', accountId).execute();
  await deleteLedger(db, accountId);
  await deps.domains.oauth.setClockOffset(db, accountId, 0n);
  await deps.domains.oauth.setKycStatus(db, accountId, 'VERIFIED');
  for (const hook of deps.hooks.onAccountCreated) await hook(db, accountId);
}

/** Holds (PENDING) or releases (VERIFIED) the account's new captures for identity verification. */
export async function setKycStatus(ctx: ServiceContext, status: KycStatusView['kyc_status']): Promise<KycStatusView> {
  await ctx.deps.domains.oauth.setKycStatus(ctx.db, ctx.accountId, status);
  return { payer_id: ctx.accountId, kyc_status: status };
}

/** Deletes an account's data (or every account's), keeping accounts, apps and tokens. */
export async function resetData(deps: ServerDeps, accountId: string | 'all'): Promise<ResetResult> {
  const ids =
    accountId === 'all' ? (await deps.domains.oauth.listAccounts(deps.db)).map((account) => account.id) : [accountId];
  await deps.storage.transaction({ name: 'sandbox.reset' }, async (trx) => {
    for (const id of ids) await resetOne(deps, trx, id);
  });
  for (const id of ids) deps.clock.setOffset(id, 0);
  return { reset: accountId === 'all' ? 'all' : 'account' };
}

export async function whoami(deps: ServerDeps, accountId: string, clientId: string, appId: string): Promise<Whoami> {
  const account = await deps.domains.oauth.findAccount(deps.db, accountId);
  if (!account) throw notFound('payer', accountId);
  return { payer_id: account.id, email: account.email, client_id: clientId, app_id: appId };
}
