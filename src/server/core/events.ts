// The transactional outbox: an event is written in the same transaction as the change it reports,
// at its end (a before-commit step: on PostgreSQL the inserts go with the COMMIT instead of costing a
// round trip each). A read of the outbox in that transaction writes them first (`writePendingEvents`).

import { prepared } from '../db/prepared.js';
import { beforeCommitStep, takeBeforeCommit, type BeforeCommitStep } from '../db/storage.js';
import type { Trx } from '../db/schema.js';
import type { ServiceContext } from './deps.js';
import type { Queryable } from '../db/schema.js';
import { isoMillis, isoSeconds } from './clock.js';
import { prefixedId, type IdGenerator } from './ids.js';

export interface EventLink {
  href: string;
  rel: string;
  method: string;
}

/**
 * A resource read back from the outbox: a JSON object of some domain's presented type (which one,
 * `resource_type` says). Writers name the type they store (`R` of NewEvent and EventEnvelope).
 */
export type StoredEventResource = { [field: string]: unknown };

/**
 * The notification body, exactly as a receiver gets it. `R` is the resource's type: the domain's
 * presented type where the event is written (Order, Capture, InvoiceEventResource, ...).
 */
export interface EventEnvelope<R extends object = StoredEventResource> {
  id: string;
  event_version: string;
  create_time: string;
  resource_type: string;
  resource_version: string;
  event_type: string;
  summary: string;
  resource: R;
  links: EventLink[];
}

export interface NewEvent<R extends object> {
  accountId: string;
  eventType: string;
  resourceType: string;
  resourceId: string;
  /** The resource as the API presents it, stored in the envelope as it is. */
  resource: R;
  summary: string;
  resourceVersion?: string;
  eventVersion?: string;
}

export interface EventContext {
  ids: IdGenerator;
  now: Date;
  baseUrl: string;
}

/** Writes one event to the outbox in the request's transaction, with its ids, time and base URL. */
export function writeEventIn<R extends object>(ctx: ServiceContext, event: NewEvent<R>): Promise<EventEnvelope<R>> {
  return writeEvent(ctx.db, { ids: ctx.deps.ids, now: ctx.now, baseUrl: ctx.baseUrl }, event);
}

/** An event's links in the webhooks-events API: itself, and its resend. */
export function eventLinks(baseUrl: string, id: string): EventLink[] {
  const self = `${baseUrl}/v1/notifications/webhooks-events/${id}`;
  return [
    { href: self, rel: 'self', method: 'GET' },
    { href: `${self}/resend`, rel: 'resend', method: 'POST' },
  ];
}

type EventRowArgs = { id: string; accountId: string; eventType: string; resourceType: string; resourceId: string; createTime: string; body: string };

const insertEvent = prepared<EventRowArgs>((db, arg) =>
  db.insertInto('events').values({
    id: arg('id'),
    account_id: arg('accountId'),
    event_type: arg('eventType'),
    resource_type: arg('resourceType'),
    resource_id: arg('resourceId'),
    create_time: arg('createTime'),
    body: arg('body'),
  }),
);

/** The events a transaction has written so far, inserted in that order at its end. */
class PendingEvents implements BeforeCommitStep {
  readonly rows: EventRowArgs[] = [];
  constructor(private readonly db: Queryable) {}

  async run(trx: Trx): Promise<void> {
    for (const row of this.rows) await insertEvent.execute(trx, row);
  }

  commitQueries() {
    return this.rows.map((row) => insertEvent.bind(this.db, row));
  }
}

/** The kind of the outbox's before-commit step. */
const OUTBOX = {};

/**
 * Inserts the events `db`'s transaction has waiting: every read of the outbox (notifications/store.ts)
 * goes through this first, so it sees its own transaction's events.
 */
export async function writePendingEvents(db: Queryable): Promise<void> {
  const step = takeBeforeCommit(db, OUTBOX);
  if (step !== undefined) await step.run(db as Trx);
}

/**
 * Writes one event to the outbox on `db` (which should be the request's transaction), at the end of
 * that transaction; outside one, at once.
 */
export async function writeEvent<R extends object>(db: Queryable, ctx: EventContext, event: NewEvent<R>): Promise<EventEnvelope<R>> {
  const id = prefixedId(ctx.ids, 'WH', 20);
  const envelope: EventEnvelope<R> = {
    id,
    event_version: event.eventVersion ?? '1.0',
    create_time: isoSeconds(ctx.now),
    resource_type: event.resourceType,
    resource_version: event.resourceVersion ?? '2.0',
    event_type: event.eventType,
    summary: event.summary,
    resource: event.resource,
    links: eventLinks(ctx.baseUrl, id),
  };
  const row: EventRowArgs = {
    id,
    accountId: event.accountId,
    eventType: event.eventType,
    resourceType: event.resourceType,
    resourceId: event.resourceId,
    createTime: isoMillis(ctx.now),
    body: JSON.stringify(envelope),
  };
  const pending = beforeCommitStep(db, OUTBOX, () => new PendingEvents(db));
  if (pending !== undefined) pending.rows.push(row);
  else await insertEvent.execute(db, row);
  return envelope;
}
