// Storage of subscriptions, deliveries (and their leases), attempts and the outbox fan-out. Every query names its account.

import { sql, type Selectable } from 'kysely';
import { newestFirstPage, whereGiven } from '../db/list-query.js';
import { findRow, insertRow, prepared, rowExists, updateRows, type ArgFn } from '../db/prepared.js';
import type { Database, Queryable, WithSeq } from '../db/schema.js';
import { writePendingEvents } from '../core/events.js';
import type { DeliveryStatus } from './states.js';

export interface SubscriptionRow {
  id: string;
  account_id: string;
  app_id: string;
  url: string;
  /** JSON array of event type names (or `*`). */
  event_types: string;
  /** Where the subscriber reached the server; the certificate URL of its deliveries uses it. */
  base_url: string;
  /** Only events after this outbox position are delivered to it. */
  from_seq: bigint;
  create_time: string;
  update_time: string;
}

export type DeliveryKind = 'EVENT' | 'RESEND' | 'SIMULATED';

export interface DeliveryRow {
  id: string;
  account_id: string;
  event_id: string;
  /** Outbox position of the event; null for simulated events, which are not in the outbox. */
  event_seq: bigint | null;
  event_type: string;
  resource_id: string;
  /** The subscription; null when a simulated event was sent to a bare URL. */
  webhook_id: string | null;
  /** The webhook id in the signed string. */
  signing_webhook_id: string;
  /** The receiver address for URL-targeted simulations; otherwise the subscription's current URL is used. */
  target_url: string | null;
  receiver_path: string;
  cert_base_url: string;
  kind: DeliveryKind;
  mock_body: string | null;
  status: DeliveryStatus;
  attempt_count: bigint;
  next_attempt_at: string | null;
  last_status_code: bigint | null;
  last_error: string | null;
  create_time: string;
  update_time: string;
}

/** Who is attempting a delivery, until when (ms of real time); null when nobody (migration 0012). */
export interface DeliveryLease {
  lease_owner: string | null;
  lease_until: bigint | null;
}

export interface AttemptRow {
  delivery_id: string;
  account_id: string;
  attempt_number: bigint;
  attempt_time: string;
  url: string;
  transmission_id: string;
  status_code: bigint | null;
  error: string | null;
  duration_ms: bigint;
}

/** A webhook lookup: the app an account's events are routed to. */
export interface LookupRow {
  id: string;
  account_id: string;
  app_id: string;
  client_id: string;
  create_time: string;
}

declare module '../db/schema.js' {
  interface Database {
    webhook_lookups: LookupRow;
    webhook_subscriptions: SubscriptionRow;
    webhook_deliveries: DeliveryRow & DeliveryLease;
    webhook_attempts: WithSeq<AttemptRow>;
  }
}

// ---- lookups

export async function insertLookup(db: Queryable, row: LookupRow): Promise<void> {
  await db.insertInto('webhook_lookups').values(row).execute();
}

export function findLookup(db: Queryable, accountId: string, id: string): Promise<LookupRow | undefined> {
  return db.selectFrom('webhook_lookups').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
}

export function lookupOfApp(db: Queryable, accountId: string, appId: string): Promise<LookupRow | undefined> {
  return db.selectFrom('webhook_lookups').selectAll().where('account_id', '=', accountId).where('app_id', '=', appId).executeTakeFirst();
}

export function listLookups(db: Queryable, accountId: string): Promise<LookupRow[]> {
  return db.selectFrom('webhook_lookups').selectAll().where('account_id', '=', accountId).orderBy('create_time').orderBy('id').execute();
}

/** Whether a lookup was deleted. */
export async function deleteLookup(db: Queryable, accountId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('webhook_lookups').where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

// ---- subscriptions

export async function insertSubscription(db: Queryable, row: SubscriptionRow): Promise<void> {
  await db.insertInto('webhook_subscriptions').values(row).execute();
}

export function findSubscription(db: Queryable, accountId: string, id: string): Promise<SubscriptionRow | undefined> {
  // Prepared (db/prepared.ts): every simulated event and delivery batch looks its subscription up.
  return findRow(db, 'webhook_subscriptions', { account_id: accountId, id });
}

export function listSubscriptions(db: Queryable, accountId: string, appId?: string): Promise<SubscriptionRow[]> {
  let query = db.selectFrom('webhook_subscriptions').selectAll().where('account_id', '=', accountId);
  if (appId !== undefined) query = query.where('app_id', '=', appId);
  return query.orderBy('create_time').orderBy('id').execute();
}

export async function countSubscriptions(db: Queryable, accountId: string, appId: string): Promise<number> {
  const row = await db
    .selectFrom('webhook_subscriptions')
    .select((eb) => eb.fn.countAll<bigint>().as('count'))
    .where('account_id', '=', accountId)
    .where('app_id', '=', appId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function updateSubscription(
  db: Queryable,
  accountId: string,
  id: string,
  changes: Pick<SubscriptionRow, 'url' | 'event_types' | 'update_time'>,
): Promise<void> {
  await db.updateTable('webhook_subscriptions').set(changes).where('account_id', '=', accountId).where('id', '=', id).execute();
}

export async function deleteSubscription(db: Queryable, accountId: string, id: string, now: string): Promise<void> {
  await db.deleteFrom('webhook_subscriptions').where('account_id', '=', accountId).where('id', '=', id).execute();
  await db
    .updateTable('webhook_deliveries')
    .set({ status: 'CANCELLED', next_attempt_at: null, update_time: now })
    .where('account_id', '=', accountId)
    .where('webhook_id', '=', id)
    .where('status', '=', 'PENDING')
    .execute();
}

/** The newest outbox position: a new subscription receives only what commits after it. */
export async function latestEventSeq(db: Queryable): Promise<bigint> {
  await writePendingEvents(db);
  const row = await db
    .selectFrom('events')
    .select((eb) => eb.fn.max<bigint | null>('seq').as('seq'))
    .executeTakeFirst();
  return row?.seq ?? 0n;
}

// ---- outbox fan-out

/**
 * The outbox position up to which every event has been fanned out (the seq before the first event
 * still waiting, or the newest seq when none waits).
 */
export async function readCursor(db: Queryable): Promise<bigint> {
  await writePendingEvents(db);
  const waiting = await db
    .selectFrom('events')
    .select((eb) => eb.fn.min<bigint | null>('seq').as('seq'))
    .where('fanned_out', '=', 0n)
    .executeTakeFirst();
  return waiting?.seq != null ? waiting.seq - 1n : latestEventSeq(db);
}

export interface OutboxEvent {
  seq: bigint;
  id: string;
  account_id: string;
  event_type: string;
  resource_type: string;
  resource_id: string;
  body: string;
}

const firstUnfannedEvent = prepared((db) =>
  db.selectFrom('events').select('seq').where('fanned_out', '=', sql.lit(0n)).limit(sql.lit(1)),
);

/** Whether any committed event waits for its fan-out (one cheap query on a partial index, the common answer being no). */
export async function hasUnfannedEvents(db: Queryable): Promise<boolean> {
  await writePendingEvents(db);
  return (await firstUnfannedEvent.first(db, {})) !== undefined;
}

/**
 * Claims the oldest events not fanned out yet, in outbox order: rows another transaction holds are
 * skipped (PostgreSQL; on SQLite the writer holds the file). The caller marks them fanned out in
 * the same transaction.
 */
export async function claimUnfannedEvents(db: Queryable, limit: number): Promise<OutboxEvent[]> {
  await writePendingEvents(db);
  const rows = await db
    .selectFrom('events')
    .select(['seq', 'id', 'account_id', 'event_type', 'resource_type', 'resource_id', 'body'])
    .where('fanned_out', '=', 0n)
    .orderBy('seq')
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .execute();
  return rows.map((row) => ({ ...row, seq: row.seq }));
}

/** Marks claimed events fanned out; throws unless every one of them was still waiting. */
export async function markFannedOut(db: Queryable, seqs: readonly bigint[]): Promise<void> {
  if (seqs.length === 0) return;
  await writePendingEvents(db);
  const result = await db.updateTable('events').set({ fanned_out: 1n }).where('seq', 'in', seqs).where('fanned_out', '=', 0n).executeTakeFirst();
  if (Number(result.numUpdatedRows) !== seqs.length) throw new Error(`webhook fan-out: ${seqs.length - Number(result.numUpdatedRows)} events were fanned out by another server`);
}

export async function subscriptionsOfAccounts(db: Queryable, accountIds: readonly string[]): Promise<SubscriptionRow[]> {
  if (accountIds.length === 0) return [];
  return db.selectFrom('webhook_subscriptions').selectAll().where('account_id', 'in', accountIds).execute();
}

// ---- deliveries

export async function insertDeliveries(db: Queryable, rows: readonly DeliveryRow[]): Promise<void> {
  // One prepared insert per row: a multi-row insert built by Kysely cost more CPU to build (and a new
  // statement for every row count) than SQLite spent inserting, under the webhook bench.
  for (const row of rows) await insertRow(db, 'webhook_deliveries', row);
}

export async function accountIds(db: Queryable): Promise<string[]> {
  return (await db.selectFrom('accounts').select('id').execute()).map((row) => row.id);
}

export interface DueDelivery extends DeliveryRow, DeliveryLease {
  event_body: string | null;
  subscription_url: string | null;
}

const firstDueDelivery = prepared((db, arg: ArgFn<{ latest: string }>) =>
  db.selectFrom('webhook_deliveries').select('id').where('status', '=', sql.lit('PENDING')).where('next_attempt_at', '<=', arg('latest')).limit(sql.lit(1)),
);

/**
 * Whether any pending delivery is due by `latest` (the latest of the accounts' clocks), leased or
 * not: one read, without a transaction or a lock. When there is none, no account has a delivery
 * to claim (`claimDueDeliveries` asks for that and more), which is the common answer of the
 * dispatcher's periodic read.
 */
export async function anyDeliveryDue(db: Queryable, latest: string): Promise<boolean> {
  return (await firstDueDelivery.first(db, { latest })) !== undefined;
}

/** `anyDeliveryDue`'s statement as it runs, for a look at its plan. */
export const anyDeliveryDueQuery = (db: Queryable, latest: string) => firstDueDelivery.bind(db, { latest });

/** The receiver a delivery goes to: its subscription, or `url:` and the merchant for its simulations to bare URLs (dispatcher.ts). */
export const receiverKeySql = sql<string>`coalesce(d.webhook_id, 'url:' || d.account_id)`;

/** A server's claim on deliveries: who, and the times (ms of real time) that bound the lease. */
export interface LeaseClaim {
  owner: string;
  nowMs: number;
  untilMs: number;
}

/**
 * Claims due pending deliveries of one account, oldest due first (the index order of
 * webhook_deliveries_due, so no sort), for `claim.owner` until `claim.untilMs`: those nobody
 * holds, whose lease ran out, or already ours; rows another transaction is claiming are skipped.
 * A delivery is held back while an earlier event for the same subscription and resource has not
 * had its first attempt (per-resource commit order). One statement picks and leases (an UPDATE
 * over a `FOR UPDATE SKIP LOCKED` pick), a second reads the claimed rows with their bodies.
 */
export async function claimDueDeliveries(
  db: Queryable,
  accountId: string,
  now: string,
  limit: number,
  excludeIds: readonly string[],
  excludeReceivers: readonly string[],
  claim: LeaseClaim,
): Promise<DueDelivery[]> {
  let pick = db
    .selectFrom('webhook_deliveries as d')
    .select('d.id')
    .where('d.status', '=', 'PENDING')
    .where('d.account_id', '=', accountId)
    .where('d.next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('d.lease_until', 'is', null), eb('d.lease_until', '<', BigInt(claim.nowMs)), eb('d.lease_owner', '=', claim.owner)]))
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('webhook_deliveries as p')
            .select('p.id')
            .whereRef('p.webhook_id', '=', 'd.webhook_id')
            .whereRef('p.resource_id', '=', 'd.resource_id')
            .whereRef('p.event_seq', '<', 'd.event_seq')
            .where('p.status', '=', 'PENDING')
            .where('p.attempt_count', '=', 0n),
        ),
      ),
    );
  if (excludeIds.length > 0) pick = pick.where('d.id', 'not in', excludeIds);
  if (excludeReceivers.length > 0) pick = pick.where(receiverKeySql, 'not in', excludeReceivers);
  const claimed = await db
    .updateTable('webhook_deliveries')
    .set({ lease_owner: claim.owner, lease_until: BigInt(claim.untilMs) })
    .where('id', 'in', pick.orderBy('d.next_attempt_at').limit(limit).forUpdate().skipLocked())
    .returning('id')
    .execute();
  if (claimed.length === 0) return [];
  const rows = await db
    .selectFrom('webhook_deliveries as d')
    .leftJoin('events as e', 'e.seq', 'd.event_seq')
    .leftJoin('webhook_subscriptions as s', 's.id', 'd.webhook_id')
    .selectAll('d')
    .select(['e.body as event_body', 's.url as subscription_url'])
    .where('d.id', 'in', claimed.map((row) => row.id))
    .orderBy('d.next_attempt_at')
    .execute();
  return rows as DueDelivery[];
}

/**
 * Renews `owner`'s leases on these deliveries until `untilMs`, in one statement; returns the ids
 * renewed. A delivery missing from the answer was taken over, recorded or deleted meanwhile, or is
 * locked right now (PostgreSQL: skipped, not waited for, so a long record of this server's attempts
 * or another server's claim never holds up the renewal of the rest).
 */
export async function renewDeliveryLeases(db: Queryable, owner: string, ids: readonly string[], untilMs: number): Promise<string[]> {
  if (ids.length === 0) return [];
  const pick = db.selectFrom('webhook_deliveries').select('id').where('lease_owner', '=', owner).where('id', 'in', ids).forUpdate().skipLocked();
  const rows = await db
    .updateTable('webhook_deliveries')
    .set({ lease_until: BigInt(untilMs) })
    .where('id', 'in', pick)
    .returning('id')
    .execute();
  return rows.map((row) => row.id);
}

/** Of these deliveries, those `owner` no longer holds (another owner, no owner, or deleted): a plain read, no lock. */
export async function deliveriesNotHeld(db: Queryable, owner: string, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const held = await db.selectFrom('webhook_deliveries').select('id').where('id', 'in', ids).where('lease_owner', '=', owner).execute();
  const still = new Set(held.map((row) => row.id));
  return ids.filter((id) => !still.has(id));
}

/** Gives back `owner`'s leases on these deliveries (not attempted after all). */
export async function releaseDeliveryLeases(db: Queryable, owner: string, ids: readonly string[]): Promise<void> {
  await db.updateTable('webhook_deliveries').set({ lease_owner: null, lease_until: null }).where('id', 'in', ids).where('lease_owner', '=', owner).execute();
}

export type AttemptOutcome = Pick<DeliveryRow, 'status' | 'next_attempt_at' | 'last_status_code' | 'last_error' | 'update_time'>;

/**
 * The delivery's status if `owner` holds its lease, locking it: an UPDATE that changes nothing, so
 * that on SQLite the transaction starts by taking the write lock (a read first would make its first
 * write fail when another process committed in between).
 */
const leasedDeliveryStatus = prepared<{ id: string; owner: string }, { status: string }>((db, arg) =>
  db
    .updateTable('webhook_deliveries')
    .set((eb) => ({ lease_owner: eb.ref('lease_owner') }))
    .where('id', '=', arg('id'))
    .where('lease_owner', '=', arg('owner'))
    .returning('status'),
);

/**
 * Records finished attempts in the caller's transaction and gives their leases back, only where
 * `owner` still holds the lease (otherwise another server took the delivery over and records its
 * own attempt). Deliveries deleted meanwhile (a reset) are skipped; one cancelled while its
 * attempt was in flight keeps its status but counts it. Returns how many were recorded.
 */
export async function recordAttempts(db: Queryable, owner: string, results: ReadonlyArray<{ attempt: AttemptRow; outcome: AttemptOutcome }>): Promise<number> {
  // Prepared statements, one row each (db/prepared.ts): built by Kysely, these batches were a
  // measurable share of the CPU per delivery under the webhook bench.
  let recorded = 0;
  for (const { attempt, outcome } of results) {
    const current = await leasedDeliveryStatus.first(db, { id: attempt.delivery_id, owner });
    if (current === undefined) continue;
    await insertRow(db, 'webhook_attempts', attempt);
    const counted = { attempt_count: attempt.attempt_number, update_time: outcome.update_time, lease_owner: null, lease_until: null };
    await updateRows(db, 'webhook_deliveries', { id: attempt.delivery_id }, current.status === 'PENDING' ? { ...outcome, ...counted } : counted);
    recorded += 1;
  }
  return recorded;
}

export interface DeliveryFilter {
  eventId?: string;
  webhookId?: string;
  status?: DeliveryStatus;
  limit: number;
}

export function listDeliveries(db: Queryable, accountId: string, filter: DeliveryFilter): Promise<DeliveryRow[]> {
  const query = db.selectFrom('webhook_deliveries').selectAll().where('account_id', '=', accountId);
  const given = whereGiven(query, { event_id: filter.eventId, webhook_id: filter.webhookId, status: filter.status });
  return newestFirstPage(given, 'id', undefined, filter.limit).execute();
}

export async function attemptsOf(db: Queryable, accountId: string, deliveryIds: readonly string[]): Promise<AttemptRow[]> {
  if (deliveryIds.length === 0) return [];
  return db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('delivery_id', 'in', deliveryIds)
    .orderBy('delivery_id')
    .orderBy('attempt_number')
    .execute();
}

/** Deliveries of an event to a subscription that are still waiting (a resend skips those). */
export function pendingDeliveryExists(db: Queryable, accountId: string, eventId: string, webhookId: string): Promise<boolean> {
  return rowExists(db, 'webhook_deliveries', { account_id: accountId, event_id: eventId, webhook_id: webhookId, status: 'PENDING' });
}

/** The body of a simulated event this account was sent (for signature verification). */
export async function mockEventBody(db: Queryable, accountId: string, eventId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select('mock_body')
    .where('account_id', '=', accountId)
    .where('event_id', '=', eventId)
    .where('mock_body', 'is not', null)
    .executeTakeFirst();
  return row?.mock_body ?? undefined;
}

export async function deleteAccountDeliveries(db: Queryable, accountId: string): Promise<void> {
  await db.deleteFrom('webhook_attempts').where('account_id', '=', accountId).execute();
  await db.deleteFrom('webhook_deliveries').where('account_id', '=', accountId).execute();
}

// ---- event history

/** An event as the history reads it: the outbox's row (db/schema.ts), all columns. */
export type EventRow = Selectable<Database['events']>;

export async function findEvent(db: Queryable, accountId: string, id: string): Promise<EventRow | undefined> {
  await writePendingEvents(db);
  return findRow(db, 'events', { account_id: accountId, id });
}

export interface EventFilter {
  eventType?: string;
  transactionId?: string;
  startTime?: string;
  endTime?: string;
  /** Resume after this (create_time, seq), newest first. */
  before?: { createTime: string; seq: bigint };
  limit: number;
}

/** Newest first by (create_time, seq): walks the (account_id, create_time) index, whose rows end in seq. */
export async function listEvents(db: Queryable, accountId: string, filter: EventFilter): Promise<EventRow[]> {
  await writePendingEvents(db);
  let query = whereGiven(db.selectFrom('events').selectAll().where('account_id', '=', accountId), {
    event_type: filter.eventType,
    resource_id: filter.transactionId,
  });
  if (filter.startTime !== undefined) query = query.where('create_time', '>=', filter.startTime);
  if (filter.endTime !== undefined) query = query.where('create_time', '<=', filter.endTime);
  const end = filter.before && { createTime: filter.before.createTime, tie: filter.before.seq };
  return newestFirstPage(query, 'seq', end, filter.limit).execute();
}
