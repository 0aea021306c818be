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

/** The notification body, exactly as a receiver gets it. */
export interface EventEnvelope {
  id: string;
  event_version: string;
  create_time: string;
  resource_type: string;
  resource_version: string;
  event_type: string;
  summary: string;
  resource: unknown;
  links: EventLink[];
}

export interface NewEvent {
  accountId: string;
  eventType: string;
  resourceType: string;
  resourceId: string;
  resource: unknown;
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
export function writeEventIn(ctx: ServiceContext, event: NewEvent): Promise<EventEnvelope> {
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
export async function writeEvent(db: Queryable, ctx: EventContext, event: NewEvent): Promise<EventEnvelope> {
  const id = prefixedId(ctx.ids, 'WH', 20);
  const envelope: EventEnvelope = {
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
