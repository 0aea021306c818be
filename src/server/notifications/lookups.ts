// Webhook lookups: which app (client id) the account's events are routed to. Events are already
// delivered to every subscription of the account, so a lookup is a record the caller manages.

import { isoMillis } from '../core/clock.js';
import type { ServiceContext } from '../core/deps.js';
import { transactionId } from '../core/ids.js';
import { notFound, serviceError } from '../http/errors.js';
import { link, type Link } from '../http/links.js';
import * as store from './store.js';

export interface LookupView {
  id: string;
  client_id: string;
  links: Link[];
}

function lookupView(row: store.LookupRow, baseUrl: string): LookupView {
  const self = `/v1/notifications/webhooks-lookup/${row.id}`;
  return { id: row.id, client_id: row.client_id, links: [link(baseUrl, self, 'self', 'GET'), link(baseUrl, self, 'delete', 'DELETE')] };
}

/** Creates the lookup of the calling app; an app has at most one per account. */
export async function createLookup(ctx: ServiceContext, caller: { appId: string; clientId: string }): Promise<LookupView> {
  const existing = await store.lookupOfApp(ctx.db, ctx.accountId, caller.appId);
  if (existing) {
    throw serviceError('UNPROCESSABLE_ENTITY', 'WEBHOOK_LOOKUP_ALREADY_EXISTS', `This app already has webhook lookup ${existing.id}; delete it first.`, {
      value: existing.id,
    });
  }
  const row: store.LookupRow = {
    id: transactionId(ctx.deps.ids),
    account_id: ctx.accountId,
    app_id: caller.appId,
    client_id: caller.clientId,
    create_time: isoMillis(ctx.now),
  };
  await store.insertLookup(ctx.db, row);
  return lookupView(row, ctx.baseUrl);
}

export async function listLookups(ctx: ServiceContext): Promise<{ webhooks_lookups: LookupView[] }> {
  const rows = await store.listLookups(ctx.db, ctx.accountId);
  return { webhooks_lookups: rows.map((row) => lookupView(row, ctx.baseUrl)) };
}

export async function getLookup(ctx: ServiceContext, id: string): Promise<LookupView> {
  const row = await store.findLookup(ctx.db, ctx.accountId, id);
  if (!row) throw notFound('webhook_lookup', id);
  return lookupView(row, ctx.baseUrl);
}

export async function deleteLookup(ctx: ServiceContext, id: string): Promise<void> {
  if (!(await store.deleteLookup(ctx.db, ctx.accountId, id))) throw notFound('webhook_lookup', id);
}
