// The transactional outbox: an event is written in the same transaction as the change it reports.

import { insertRow } from '../db/prepared.js';
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

/** Writes one event to the outbox on `db` (which should be the request's transaction). */
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
  await insertRow(db, 'events', {
    id,
    account_id: event.accountId,
    event_type: event.eventType,
    resource_type: event.resourceType,
    resource_id: event.resourceId,
    create_time: isoMillis(ctx.now),
    body: JSON.stringify(envelope),
  });
  return envelope;
}
