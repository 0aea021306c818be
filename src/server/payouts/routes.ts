// Payouts over HTTP: batches, items, and the /_payctl balance routes; plus the processing job and hooks.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServerDeps } from '../core/deps.js';
import { MUTATION_ROUTE, RETENTION_SECONDS, runMutation, sendResult, serviceContext } from '../http/idempotency.js';
import { parseBody, parsePath, parseQuery } from '../http/validation.js';
import { balancesView, topUpBalance } from './balances.js';
import { claimItemsForNewAccount, processPayoutBatches, returnExpiredUnclaimedItems } from './processing.js';
import { batchPathSchema, batchQuerySchema, itemPathSchema, parseCreatePayout, topUpSchema } from './schema.js';
import { cancelPayoutItem, createPayoutBatch, getPayoutBatch, getPayoutItem } from './service.js';
import { deletePayouts } from './store.js';

/** 15,000 items with long notes do not fit the default body limit. */
export const CREATE_BODY_LIMIT = 64 * 1024 * 1024;

/**
 * Payouts answer errors in the generic error shape, which names its documentation page in
 * `information_link` (a string) besides the `links` entry every error carries.
 */
async function withInformationLink(_request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  if (reply.statusCode < 400 || typeof payload !== 'string') return payload;
  try {
    const body = JSON.parse(payload) as { name?: unknown; information_link?: unknown; links?: Array<{ rel?: unknown; href?: unknown }> };
    const info = body.links?.find((entry) => entry.rel === 'information_link');
    if (typeof body.name !== 'string' || body.information_link !== undefined || typeof info?.href !== 'string') return payload;
    return JSON.stringify({ ...body, information_link: info.href });
  } catch {
    return payload;
  }
}

export function registerPayoutsRoutes(app: FastifyInstance, deps: ServerDeps): void {
  deps.scheduler.register('payouts', async () => {
    await processPayoutBatches(deps);
    await returnExpiredUnclaimedItems(deps);
  });
  deps.hooks.onAccountReset.push((db, accountId) => deletePayouts(db, accountId));
  deps.hooks.onAccountCreated.push((db, accountId) => claimItemsForNewAccount(deps, db, accountId));

  const operation = (name: string) => ({ operation: name, retentionSeconds: RETENTION_SECONDS.payouts });

  app.post('/v1/payments/payouts', { ...MUTATION_ROUTE, bodyLimit: CREATE_BODY_LIMIT, onSend: withInformationLink }, async (request, reply) => {
    const body = parseCreatePayout(request.body);
    const result = await runMutation(deps, request, operation('payouts.create'), (ctx) => createPayoutBatch(ctx, body));
    return sendResult(reply, result);
  });

  app.get('/v1/payments/payouts/:id', { onSend: withInformationLink }, async (request) => {
    const { id } = parsePath(batchPathSchema, request.params);
    const query = parseQuery(batchQuerySchema, request.query);
    return getPayoutBatch(serviceContext(deps, request), id, query);
  });

  app.get('/v1/payments/payouts-item/:payout_item_id', { onSend: withInformationLink }, async (request) => {
    const { payout_item_id: itemId } = parsePath(itemPathSchema, request.params);
    return getPayoutItem(serviceContext(deps, request), itemId);
  });

  app.post('/v1/payments/payouts-item/:payout_item_id/cancel', { ...MUTATION_ROUTE, onSend: withInformationLink }, async (request, reply) => {
    const { payout_item_id: itemId } = parsePath(itemPathSchema, request.params);
    const result = await runMutation(deps, request, operation('payouts.items.cancel'), (ctx) => cancelPayoutItem(ctx, itemId));
    return sendResult(reply, result);
  });

  app.get('/_payctl/balances', async (request) => balancesView(serviceContext(deps, request)));

  app.post('/_payctl/balances', async (request, reply) => {
    const amount = parseBody(topUpSchema, request.body);
    const result = await runMutation(deps, request, { operation: 'payctl.balances.top_up' }, (ctx) => topUpBalance(ctx, amount));
    return sendResult(reply, result);
  });
}
