// Event history (list, show, resend), simulated events, and the delivery log of the control plane.

import { isoMillis, isoSeconds } from '../core/clock.js';
import type { ServiceContext } from '../core/deps.js';
import { eventLinks, type EventEnvelope } from '../core/events.js';
import { notFound, serviceError } from '../http/errors.js';
import { link, type Link } from '../http/links.js';
import { eventTarget, newDelivery } from './delivery-rows.js';
import { eventTypeInfo, subscriptionMatches } from './event-types.js';
import { joinReceiverUrl, receiverPath } from './receiver-paths.js';
import { mockEventId, sampleResource } from './samples.js';
import { subscribedNames } from './service.js';
import { MOCK_WEBHOOK_ID } from './signing.js';
import type { DeliveryStatus } from './states.js';
import * as store from './store.js';
import { receiverUrlProblem } from './url-guard.js';

const EVENTS = '/v1/notifications/webhooks-events';

function envelopeOf(row: store.EventRow): EventEnvelope {
  return JSON.parse(row.body) as EventEnvelope;
}

export interface ListEventsInput {
  page_size: number;
  start_time?: string | undefined;
  end_time?: string | undefined;
  transaction_id?: string | undefined;
  event_type?: string | undefined;
  next_page_token?: string | undefined;
}

function decodeToken(token: string): { createTime: string; seq: bigint } {
  const [createTime, seq] = Buffer.from(token, 'base64url').toString('utf8').split('|');
  if (!createTime || !seq || !/^\d{1,19}$/.test(seq) || Number.isNaN(Date.parse(createTime))) {
    throw serviceError('INVALID_REQUEST', 'INVALID_PARAMETER_VALUE', 'The page token is not one this server issued.', {
      field: 'next_page_token',
      value: token,
      location: 'query',
    });
  }
  return { createTime, seq: BigInt(seq) };
}

const encodeToken = (row: store.EventRow): string => Buffer.from(`${row.create_time}|${String(row.seq)}`, 'utf8').toString('base64url');

function queryString(input: ListEventsInput, token?: string): string {
  const params = new URLSearchParams();
  params.set('page_size', String(input.page_size));
  for (const name of ['start_time', 'end_time', 'transaction_id', 'event_type'] as const) {
    const value = input[name];
    if (value !== undefined) params.set(name, value);
  }
  if (token !== undefined) params.set('next_page_token', token);
  return params.toString();
}

/** Newest first; a `next` link carries the token of the page after this one. */
export async function listEvents(ctx: ServiceContext, input: ListEventsInput): Promise<{ events: EventEnvelope[]; count: number; links: Link[] }> {
  const rows = await store.listEvents(ctx.db, ctx.accountId, {
    eventType: input.event_type,
    transactionId: input.transaction_id,
    startTime: input.start_time,
    endTime: input.end_time,
    ...(input.next_page_token !== undefined ? { before: decodeToken(input.next_page_token) } : {}),
    limit: input.page_size + 1,
  });
  const page = rows.slice(0, input.page_size);
  const links = [link(ctx.baseUrl, `${EVENTS}?${queryString(input, input.next_page_token)}`, 'self')];
  const last = page.at(-1);
  if (rows.length > input.page_size && last) links.push(link(ctx.baseUrl, `${EVENTS}?${queryString(input, encodeToken(last))}`, 'next'));
  return { events: page.map(envelopeOf), count: page.length, links };
}

async function requireEvent(ctx: ServiceContext, id: string): Promise<store.EventRow> {
  const row = await store.findEvent(ctx.db, ctx.accountId, id);
  if (!row) throw notFound('event', id);
  return row;
}

export async function getEvent(ctx: ServiceContext, id: string): Promise<EventEnvelope> {
  return envelopeOf(await requireEvent(ctx, id));
}

/** Sends an event again to the given webhooks (default: every webhook subscribed to its type). */
export async function resendEvent(ctx: ServiceContext, id: string, webhookIds: readonly string[] | undefined): Promise<EventEnvelope> {
  const event = await requireEvent(ctx, id);
  const envelope = envelopeOf(event);
  let targets: store.SubscriptionRow[];
  if (webhookIds && webhookIds.length > 0) {
    targets = [];
    for (const webhookId of new Set(webhookIds)) {
      const sub = await store.findSubscription(ctx.db, ctx.accountId, webhookId);
      if (!sub) throw notFound('webhook', webhookId, 'body');
      targets.push(sub);
    }
  } else {
    targets = (await store.listSubscriptions(ctx.db, ctx.accountId)).filter((sub) => subscriptionMatches(subscribedNames(sub), event.event_type));
  }
  const path = receiverPath(event.event_type, event.resource_type, event.resource_id, envelope.resource);
  const rows: store.DeliveryRow[] = [];
  for (const sub of targets) {
    // A delivery still waiting will go out anyway: it is not queued twice.
    if (await store.pendingDeliveryExists(ctx.db, ctx.accountId, event.id, sub.id)) continue;
    rows.push(newDelivery(ctx.deps.ids, ctx.accountId, isoMillis(ctx.now), eventTarget(event, sub, path, 'RESEND')));
  }
  await store.insertDeliveries(ctx.db, rows);
  return envelope;
}

export interface SimulateInput {
  webhook_id?: string | undefined;
  url?: string | undefined;
  event_type: string;
  resource_version?: string | undefined;
}

/**
 * A sample event of the type, sent to one webhook (signed with its id) or to a bare URL (signed
 * with WEBHOOK_ID). Simulated events stay out of the account's event history.
 */
export async function simulateEvent(ctx: ServiceContext, input: SimulateInput): Promise<EventEnvelope> {
  const info = eventTypeInfo(input.event_type);
  if (!info) {
    throw serviceError('INVALID_REQUEST', 'INVALID_PARAMETER_VALUE', 'Unknown event type: see GET /v1/notifications/webhooks-event-types.', {
      field: '/event_type',
      value: input.event_type,
    });
  }
  let sub: store.SubscriptionRow | undefined;
  if (input.webhook_id !== undefined) {
    sub = await store.findSubscription(ctx.db, ctx.accountId, input.webhook_id);
    if (!sub) throw notFound('webhook', input.webhook_id, 'body');
  } else if (input.url !== undefined) {
    const problem = receiverUrlProblem(input.url);
    if (problem) throw serviceError('INVALID_REQUEST', problem.issue, problem.description, { field: '/url', value: input.url });
  }
  const sample = sampleResource(input.event_type, { ids: ctx.deps.ids, now: ctx.now, baseUrl: ctx.baseUrl });
  const id = mockEventId(ctx.deps.ids);
  const envelope: EventEnvelope = {
    id,
    event_version: '1.0',
    create_time: isoSeconds(ctx.now),
    resource_type: sample.resourceType,
    resource_version: input.resource_version ?? info.resourceVersion,
    event_type: input.event_type,
    summary: sample.summary,
    resource: sample.resource,
    links: eventLinks(ctx.baseUrl, id),
  };
  const row = newDelivery(ctx.deps.ids, ctx.accountId, isoMillis(ctx.now), {
    event_id: id,
    event_seq: null,
    event_type: input.event_type,
    resource_id: sample.resourceId,
    webhook_id: sub?.id ?? null,
    signing_webhook_id: sub?.id ?? MOCK_WEBHOOK_ID,
    target_url: sub ? null : (input.url ?? null),
    receiver_path: receiverPath(input.event_type, sample.resourceType, sample.resourceId, sample.resource),
    cert_base_url: ctx.baseUrl,
    kind: 'SIMULATED',
    mock_body: JSON.stringify(envelope),
  });
  await store.insertDeliveries(ctx.db, [row]);
  return envelope;
}

export interface DeliveryView {
  id: string;
  event_id: string;
  event_type: string;
  resource_id: string;
  webhook_id: string | null;
  kind: string;
  url: string | null;
  status: DeliveryStatus;
  attempt_count: number;
  next_attempt_time: string | null;
  last_status_code: number | null;
  last_error: string | null;
  create_time: string;
  update_time: string;
  attempts: Array<{
    number: number;
    time: string;
    url: string;
    transmission_id: string;
    status_code: number | null;
    error: string | null;
    duration_ms: number;
  }>;
}

/** The delivery log (GET /_payctl/deliveries): newest first, each with its attempts. */
export async function listDeliveries(ctx: ServiceContext, filter: store.DeliveryFilter): Promise<{ deliveries: DeliveryView[] }> {
  const rows = await store.listDeliveries(ctx.db, ctx.accountId, filter);
  const attempts = await store.attemptsOf(ctx.db, ctx.accountId, rows.map((row) => row.id));
  const urls = new Map((await store.listSubscriptions(ctx.db, ctx.accountId)).map((sub) => [sub.id, sub.url]));
  return {
    deliveries: rows.map((row) => {
      const base = row.target_url ?? (row.webhook_id ? urls.get(row.webhook_id) : undefined);
      return {
        id: row.id,
        event_id: row.event_id,
        event_type: row.event_type,
        resource_id: row.resource_id,
        webhook_id: row.webhook_id,
        kind: row.kind,
        url: base ? joinReceiverUrl(base, row.receiver_path) : null,
        status: row.status,
        attempt_count: Number(row.attempt_count),
        next_attempt_time: row.next_attempt_at,
        last_status_code: row.last_status_code === null ? null : Number(row.last_status_code),
        last_error: row.last_error,
        create_time: row.create_time,
        update_time: row.update_time,
        attempts: attempts
          .filter((attempt) => attempt.delivery_id === row.id)
          .map((attempt) => ({
            number: Number(attempt.attempt_number),
            time: attempt.attempt_time,
            url: attempt.url,
            transmission_id: attempt.transmission_id,
            status_code: attempt.status_code === null ? null : Number(attempt.status_code),
            error: attempt.error,
            duration_ms: Number(attempt.duration_ms),
          })),
      };
    }),
  };
}
