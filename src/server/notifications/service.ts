// Webhook subscriptions: a receiver address and the event types it wants, at most ten per app.

import type { z } from 'zod';
import { isoMillis } from '../core/clock.js';
import type { ServiceContext } from '../core/deps.js';
import { transactionId } from '../core/ids.js';
import { lockAccount } from '../db/account-lock.js';
import { ServiceError, notFound, serviceError, type ErrorDetail } from '../http/errors.js';
import { link, type Link } from '../http/links.js';
import { parseWith } from '../http/validation.js';
import { ALL_EVENTS, ALL_EVENTS_DESCRIPTION, eventTypeInfo, isKnownEventType } from './event-types.js';
import { eventTypesValueSchema, urlValueSchema } from './schema.js';
import * as store from './store.js';
import { receiverUrlProblem } from './url-guard.js';

export const MAX_WEBHOOKS_PER_APP = 10;

export interface EventTypeView {
  name: string;
  description: string;
  status?: string;
  resource_versions?: string[];
}

export interface WebhookView {
  id: string;
  url: string;
  event_types: EventTypeView[];
  links: Link[];
}

export function eventTypeView(name: string): EventTypeView {
  if (name === ALL_EVENTS) return { name, description: ALL_EVENTS_DESCRIPTION };
  const info = eventTypeInfo(name);
  if (!info) return { name, description: name, status: 'DEPRECATED' };
  return { name, description: info.description, status: 'ENABLED', resource_versions: [info.resourceVersion] };
}

export function subscribedNames(row: store.SubscriptionRow): string[] {
  const parsed: unknown = JSON.parse(row.event_types);
  return Array.isArray(parsed) ? parsed.filter((name): name is string => typeof name === 'string') : [];
}

function webhookView(row: store.SubscriptionRow, baseUrl: string): WebhookView {
  const self = `/v1/notifications/webhooks/${row.id}`;
  return {
    id: row.id,
    url: row.url,
    event_types: subscribedNames(row).map(eventTypeView),
    links: [link(baseUrl, self, 'self', 'GET'), link(baseUrl, self, 'update', 'PATCH'), link(baseUrl, self, 'delete', 'DELETE')],
  };
}

function checkUrl(url: string, field: string): void {
  const problem = receiverUrlProblem(url);
  if (problem) throw serviceError('INVALID_REQUEST', problem.issue, problem.description, { field, value: url });
}

/** The names, de-duplicated, each known or `*`. */
function checkEventTypes(types: ReadonlyArray<{ name: string }>, field: string): string[] {
  const details: ErrorDetail[] = [];
  types.forEach((type, index) => {
    if (type.name !== ALL_EVENTS && !isKnownEventType(type.name)) {
      details.push({
        field: `${field}/${index}/name`,
        value: type.name,
        location: 'body',
        issue: 'INVALID_PARAMETER_VALUE',
        description: 'Unknown event type: see GET /v1/notifications/webhooks-event-types.',
      });
    }
  });
  if (details.length > 0) throw new ServiceError('INVALID_REQUEST', details);
  const names = [...new Set(types.map((type) => type.name))];
  return names.includes(ALL_EVENTS) ? [ALL_EVENTS] : names;
}

async function refuseDuplicateUrl(ctx: ServiceContext, appId: string, url: string, except?: string): Promise<void> {
  const existing = await store.listSubscriptions(ctx.db, ctx.accountId, appId);
  if (existing.some((row) => row.url === url && row.id !== except)) {
    throw serviceError('UNPROCESSABLE_ENTITY', 'WEBHOOK_URL_ALREADY_EXISTS', 'This app already has a webhook with this URL.', {
      field: '/url',
      value: url,
    });
  }
}

export interface CreateWebhookInput {
  url: string;
  event_types: Array<{ name: string }>;
}

export async function createWebhook(ctx: ServiceContext, appId: string, input: CreateWebhookInput): Promise<WebhookView> {
  checkUrl(input.url, '/url');
  const names = checkEventTypes(input.event_types, '/event_types');
  // The limit and the URL are checked across the app's webhooks, then one is inserted: under the account's lock.
  await lockAccount(ctx.db, ctx.accountId);
  if ((await store.countSubscriptions(ctx.db, ctx.accountId, appId)) >= MAX_WEBHOOKS_PER_APP) {
    throw serviceError(
      'UNPROCESSABLE_ENTITY',
      'WEBHOOK_NUMBER_LIMIT_EXCEEDED',
      `An app can have at most ${MAX_WEBHOOKS_PER_APP} webhooks; delete one first.`,
    );
  }
  await refuseDuplicateUrl(ctx, appId, input.url);
  const now = isoMillis(ctx.now);
  const row: store.SubscriptionRow = {
    id: transactionId(ctx.deps.ids),
    account_id: ctx.accountId,
    app_id: appId,
    url: input.url,
    event_types: JSON.stringify(names),
    base_url: ctx.baseUrl,
    from_seq: await store.latestEventSeq(ctx.db),
    create_time: now,
    update_time: now,
  };
  await store.insertSubscription(ctx.db, row);
  return webhookView(row, ctx.baseUrl);
}

export async function listWebhooks(ctx: ServiceContext, appId: string | undefined): Promise<{ webhooks: WebhookView[] }> {
  const rows = await store.listSubscriptions(ctx.db, ctx.accountId, appId);
  return { webhooks: rows.map((row) => webhookView(row, ctx.baseUrl)) };
}

async function requireSubscription(ctx: ServiceContext, id: string): Promise<store.SubscriptionRow> {
  const row = await store.findSubscription(ctx.db, ctx.accountId, id);
  if (!row) throw notFound('webhook', id);
  return row;
}

export async function getWebhook(ctx: ServiceContext, id: string): Promise<WebhookView> {
  return webhookView(await requireSubscription(ctx, id), ctx.baseUrl);
}

export async function webhookEventTypes(ctx: ServiceContext, id: string): Promise<{ event_types: EventTypeView[] }> {
  const row = await requireSubscription(ctx, id);
  return { event_types: subscribedNames(row).map(eventTypeView) };
}

/** Parses a patch value, naming fields from the root of the patch document. */
function parseValue<S extends z.ZodType>(schema: S, value: unknown, pointer: string): z.output<S> {
  try {
    return parseWith(schema, value, 'body');
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    const details = error.details.map((detail) => ({ ...detail, field: `${pointer}${detail.field === '/' ? '' : detail.field ?? ''}` }));
    throw new ServiceError('INVALID_REQUEST', details);
  }
}

export interface PatchOperation {
  op: string;
  path: string;
  value?: unknown;
}

/** JSON Patch limited to what the public API allows: `replace` of `/url` or `/event_types`. */
export async function updateWebhook(ctx: ServiceContext, id: string, operations: readonly PatchOperation[]): Promise<WebhookView> {
  // A new URL is checked unused across the app's webhooks, then written: under the account's lock.
  await lockAccount(ctx.db, ctx.accountId);
  const row = await requireSubscription(ctx, id);
  let url = row.url;
  let names = subscribedNames(row);
  operations.forEach((operation, index) => {
    if (operation.op !== 'replace') {
      throw serviceError('INVALID_REQUEST', 'NOT_SUPPORTED', 'Only the "replace" operation is supported.', {
        field: `/${index}/op`,
        value: operation.op,
      });
    }
    if (operation.path === '/url') {
      url = parseValue(urlValueSchema, operation.value, `/${index}/value`);
      checkUrl(url, `/${index}/value`);
    } else if (operation.path === '/event_types') {
      names = checkEventTypes(parseValue(eventTypesValueSchema, operation.value, `/${index}/value`), `/${index}/value`);
    } else {
      throw serviceError('INVALID_REQUEST', 'INVALID_PARAMETER_VALUE', 'Only /url and /event_types can be replaced.', {
        field: `/${index}/path`,
        value: operation.path,
      });
    }
  });
  if (url !== row.url) await refuseDuplicateUrl(ctx, row.app_id, url, row.id);
  const changes = { url, event_types: JSON.stringify(names), update_time: isoMillis(ctx.now) };
  await store.updateSubscription(ctx.db, ctx.accountId, id, changes);
  return webhookView({ ...row, ...changes }, ctx.baseUrl);
}

/** Deletes a subscription; its deliveries still waiting are cancelled, its history kept. */
export async function deleteWebhook(ctx: ServiceContext, id: string): Promise<void> {
  await requireSubscription(ctx, id);
  await store.deleteSubscription(ctx.db, ctx.accountId, id, isoMillis(ctx.now));
}
