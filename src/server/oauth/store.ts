// Accounts, apps, tokens and consents in storage. Every query names the table's owner explicitly.

import type { Insertable, Selectable } from 'kysely';
import { findRow, insertRow, prepared, updateRows, type ArgFn } from '../db/prepared.js';
import type { Database, Queryable } from '../db/schema.js';
import { sendAhead } from '../db/storage.js';

export type AccountRow = Selectable<Database['accounts']>;

export type AppRow = Database['apps'];

export async function insertAccount(db: Queryable, account: Insertable<Database['accounts']>): Promise<void> {
  await db.insertInto('accounts').values(account).execute();
}

export async function insertApp(db: Queryable, app: AppRow): Promise<void> {
  await db.insertInto('apps').values(app).execute();
}

export function findAccount(db: Queryable, id: string): Promise<AccountRow | undefined> {
  return findRow(db, 'accounts', { id });
}

export function findAccountByEmail(db: Queryable, email: string): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').selectAll().where('email', '=', email).executeTakeFirst();
}

export function findDefaultAccount(db: Queryable): Promise<AccountRow | undefined> {
  return db.selectFrom('accounts').selectAll().where('is_default', '=', 1n).executeTakeFirst();
}

export function listAccounts(db: Queryable): Promise<AccountRow[]> {
  return db.selectFrom('accounts').selectAll().orderBy('created_at').execute();
}

export function findAppByClientId(db: Queryable, clientId: string): Promise<AppRow | undefined> {
  return db.selectFrom('apps').selectAll().where('client_id', '=', clientId).executeTakeFirst();
}

export function findDefaultApp(db: Queryable, accountId: string): Promise<AppRow | undefined> {
  return db
    .selectFrom('apps')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('is_default', '=', 1n)
    .executeTakeFirst();
}

/** New credentials for an app; its tokens go with the old ones (token caches notice through the storage). */
export async function updateAppCredentials(db: Queryable, appId: string, clientId: string, secretHash: string): Promise<void> {
  await db.updateTable('apps').set({ client_id: clientId, secret_hash: secretHash }).where('id', '=', appId).execute();
  await db.deleteFrom('access_tokens').where('app_id', '=', appId).execute();
}

export async function setClockOffset(db: Queryable, accountId: string, offsetMs: bigint): Promise<void> {
  await updateRows(db, 'accounts', { id: accountId }, { clock_offset_ms: offsetMs });
}

/** Moves the account's clock offset by `byMs` in one statement (no read-modify-write); the new offset, or undefined for no such account. */
export async function addClockOffset(db: Queryable, accountId: string, byMs: bigint): Promise<bigint | undefined> {
  const row = await db
    .updateTable('accounts')
    .set((eb) => ({ clock_offset_ms: eb('clock_offset_ms', '+', byMs) }))
    .where('id', '=', accountId)
    .returning('clock_offset_ms')
    .executeTakeFirst();
  return row?.clock_offset_ms;
}

export function findClockOffset(db: Queryable, accountId: string): Promise<bigint | undefined> {
  return db
    .selectFrom('accounts')
    .select('clock_offset_ms')
    .where('id', '=', accountId)
    .executeTakeFirst()
    .then((row) => row?.clock_offset_ms);
}

/** Adds `delta` to the account's count of fault rules, in one statement (exact under concurrent changes). */
export async function addFaultRules(db: Queryable, accountId: string, delta: bigint): Promise<void> {
  await db
    .updateTable('accounts')
    .set((eb) => ({ fault_rule_count: eb('fault_rule_count', '+', delta) }))
    .where('id', '=', accountId)
    .execute();
}

export async function setKycStatus(db: Queryable, accountId: string, status: string): Promise<void> {
  await updateRows(db, 'accounts', { id: accountId }, { kyc_status: status });
}

export type TokenRow = Database['access_tokens'];

export async function insertToken(db: Queryable, token: TokenRow): Promise<void> {
  await insertRow(db, 'access_tokens', token);
}

/** Prepared: every request on PostgreSQL reads its token, and the join was built anew each time. */
const tokenWithApp = prepared((db, arg: ArgFn<{ tokenHash: string }>) =>
  db
    .selectFrom('access_tokens')
    .innerJoin('apps', 'apps.id', 'access_tokens.app_id')
    .innerJoin('accounts', 'accounts.id', 'access_tokens.account_id')
    .select([
      'access_tokens.account_id as account_id',
      'access_tokens.expires_at as expires_at',
      'access_tokens.scope as scope',
      'apps.id as app_id',
      'apps.client_id as client_id',
      'accounts.clock_offset_ms as clock_offset_ms',
      'accounts.fault_rule_count as fault_rule_count',
      'accounts.email as email',
      'accounts.kyc_status as kyc_status',
    ])
    .where('access_tokens.token_hash', '=', arg('tokenHash')),
);

/**
 * A token with its app, its account's clock offset (read with the token, so each request's clock is
 * the database's) and what requests read of the account (`AccountFacts`, core/deps.ts).
 */
export function findTokenWithApp(db: Queryable, tokenHash: string) {
  return tokenWithApp.first(db, { tokenHash });
}

/** The same lookup sent ahead in a transaction (db/storage.ts `sendAhead`): on PostgreSQL no round trip of its own. */
export function sendTokenWithApp(db: Queryable, tokenHash: string) {
  return sendAhead(db, tokenWithApp, { tokenHash });
}

export async function deleteExpiredTokens(db: Queryable, accountId: string, before: string): Promise<void> {
  // Expired tokens are refused on every use anyway; deleting them needs no cache invalidation.
  await db.deleteFrom('access_tokens').where('account_id', '=', accountId).where('expires_at', '<', before).execute();
}

export async function insertConsent(db: Queryable, platformClientId: string, payerId: string, now: string): Promise<void> {
  await db
    .insertInto('consents')
    .values({ platform_client_id: platformClientId, payer_id: payerId, created_at: now })
    .onConflict((conflict) => conflict.doNothing())
    .execute();
}

/** The merchant's clock offset if it consented to the platform; undefined without a consent. */
export async function consentedClockOffset(db: Queryable, platformClientId: string, payerId: string): Promise<bigint | undefined> {
  const row = await db
    .selectFrom('consents')
    .innerJoin('accounts', 'accounts.id', 'consents.payer_id')
    .select('accounts.clock_offset_ms as clock_offset_ms')
    .where('consents.platform_client_id', '=', platformClientId)
    .where('consents.payer_id', '=', payerId)
    .executeTakeFirst();
  return row?.clock_offset_ms;
}

export async function getSetting(db: Queryable, key: string): Promise<string | undefined> {
  return (await findRow(db, 'settings', { key }))?.value;
}

export async function putSetting(db: Queryable, key: string, value: string): Promise<void> {
  await db
    .insertInto('settings')
    .values({ key, value })
    .onConflict((conflict) => conflict.column('key').doUpdateSet({ value }))
    .execute();
}
