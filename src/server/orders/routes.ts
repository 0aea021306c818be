// HTTP for /v2/checkout/orders, the control-plane approval, and the payer's approval page.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { ServerDeps, ServiceContext } from '../core/deps.js';
import { serviceError } from '../http/errors.js';
import { requestIdOf } from '../http/headers.js';
import { MUTATION_ROUTE, RETENTION_SECONDS, runMutation, sendResult, serviceContext } from '../http/idempotency.js';
import { requestBaseUrl } from '../http/links.js';
import { returnPreference, shapeForPreference } from '../http/prefer.js';
import { parseBody, parsePath, parseQuery } from '../http/validation.js';
import { applyMock } from '../http/mock-response.js';
import type { Order } from './present.js';
import { approvalPage, approvedPage, missingOrderPage } from './approve-page.js';
import {
  confirmOrderSchema,
  createOrderSchema,
  orderActionSchema,
  orderParamsSchema,
  patchRequestSchema,
  trackerParamsSchema,
  trackerRequestSchema,
} from './schema.js';
import * as orders from './service.js';
import { deleteOrders, findOrderForPayer } from './store.js';
import { addTracker, patchTracker } from './trackers.js';

const ORDER = '/v2/checkout/orders/:id';

async function mutate(
  deps: ServerDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  operation: string,
  status: number,
  work: (ctx: ServiceContext) => Promise<Order>,
) {
  const preference = returnPreference(request);
  const result = await runMutation(deps, request, { operation, retentionSeconds: RETENTION_SECONDS.orders }, async (ctx) => ({
    status,
    body: shapeForPreference(await work(ctx), preference),
  }));
  // Replaying a request that created something answers 200 with the stored body.
  return sendResult(reply, { ...result, status: result.replayed ? 200 : result.status });
}

const pageQuerySchema = z.object({ token: z.string().max(36).optional() });
const pageFormSchema = z.object({ token: z.string().min(1).max(36) });

export function registerOrdersRoutes(app: FastifyInstance, deps: ServerDeps): void {
  deps.hooks.onAccountReset.push(deleteOrders);

  app.post('/v2/checkout/orders', MUTATION_ROUTE, async (request, reply) => {
    applyMock(request);
    const body = parseBody(createOrderSchema, request.body);
    if (body.payment_source && requestIdOf(request) === undefined) {
      throw serviceError('INVALID_REQUEST', 'PAYPAL_REQUEST_ID_REQUIRED', 'A request with payment_source needs a Service-Request-Id header.', {
        field: 'Service-Request-Id',
        location: 'header',
      });
    }
    return mutate(deps, request, reply, 'orders.create', 201, (ctx) => orders.createOrder(ctx, body));
  });

  app.get(ORDER, async (request) => {
    applyMock(request);
    const { id } = parsePath(orderParamsSchema, request.params);
    return orders.getOrder(serviceContext(deps, request), id);
  });

  app.post(`${ORDER}/authorize`, MUTATION_ROUTE, async (request, reply) => {
    const pendingReview = applyMock(request, ['PENDING_REVIEW']) !== undefined;
    const { id } = parsePath(orderParamsSchema, request.params);
    const body = parseBody(orderActionSchema, request.body);
    return mutate(deps, request, reply, 'orders.authorize', 201, (ctx) => orders.authorizeOrder(ctx, id, body, { pendingReview }));
  });

  app.post(`${ORDER}/capture`, MUTATION_ROUTE, async (request, reply) => {
    applyMock(request);
    const { id } = parsePath(orderParamsSchema, request.params);
    const body = parseBody(orderActionSchema, request.body);
    return mutate(deps, request, reply, 'orders.capture', 201, (ctx) => orders.captureOrder(ctx, id, body));
  });

  registerUpdateRoutes(app, deps);

  app.post('/_payctl/orders/:id/approve', async (request, reply) => {
    const { id } = parsePath(orderParamsSchema, request.params);
    const result = await runMutation(deps, request, { operation: 'sandbox.orders.approve', retentionSeconds: RETENTION_SECONDS.orders }, async (ctx) => ({
      status: 200,
      body: await orders.approveOrder(ctx, id),
    }));
    return sendResult(reply, result);
  });

  registerApprovalPage(app, deps);
}

/** Answers 204 once the change is committed; a replay with the same request id answers 204 again. */
async function update(deps: ServerDeps, request: FastifyRequest, reply: FastifyReply, operation: string, work: (ctx: ServiceContext) => Promise<void>) {
  const result = await runMutation(deps, request, { operation, retentionSeconds: RETENTION_SECONDS.orders }, async (ctx) => {
    await work(ctx);
    return { status: 204, body: undefined };
  });
  return sendResult(reply, result);
}

/** PATCH of an order, the payer's confirmation of a payment source, and shipment tracking. */
function registerUpdateRoutes(app: FastifyInstance, deps: ServerDeps): void {
  app.patch(ORDER, MUTATION_ROUTE, async (request, reply) => {
    const { id } = parsePath(orderParamsSchema, request.params);
    const operations = parseBody(patchRequestSchema, request.body);
    return update(deps, request, reply, 'orders.patch', (ctx) => orders.patchOrder(ctx, id, operations));
  });

  app.post(`${ORDER}/confirm-payment-source`, MUTATION_ROUTE, async (request, reply) => {
    applyMock(request);
    const { id } = parsePath(orderParamsSchema, request.params);
    const body = parseBody(confirmOrderSchema, request.body);
    // Confirming changes an existing order: 200, also on a replay.
    return mutate(deps, request, reply, 'orders.confirm', 200, (ctx) => orders.confirmOrder(ctx, id, body));
  });

  app.post(`${ORDER}/track`, MUTATION_ROUTE, async (request, reply) => {
    const { id } = parsePath(orderParamsSchema, request.params);
    const body = parseBody(trackerRequestSchema, request.body);
    const result = await runMutation(deps, request, { operation: 'orders.track', retentionSeconds: RETENTION_SECONDS.orders }, async (ctx) => {
      await addTracker(ctx, id, body);
      return { status: 201, body: await orders.getOrder(ctx, id) };
    });
    return sendResult(reply, { ...result, status: result.replayed ? 200 : result.status });
  });

  app.patch(`${ORDER}/trackers/:tracker_id`, MUTATION_ROUTE, async (request, reply) => {
    const { id, tracker_id: trackerId } = parsePath(trackerParamsSchema, request.params);
    const operations = parseBody(patchRequestSchema, request.body);
    return update(deps, request, reply, 'orders.trackers.patch', (ctx) => patchTracker(ctx, id, trackerId, operations));
  });
}

/** The approve link: a page the payer opens in a browser; its button approves the order. */
function registerApprovalPage(app: FastifyInstance, deps: ServerDeps): void {
  app.get('/checkoutnow', { config: { auth: 'none' } }, async (request, reply) => {
    const { token } = parseQuery(pageQuerySchema, request.query);
    const row = token ? await findOrderForPayer(deps.db, token) : undefined;
    reply.type('text/html; charset=utf-8');
    if (!row) return reply.code(404).send(missingOrderPage());
    return reply.send(approvalPage(row));
  });

  app.post('/checkoutnow', { config: { auth: 'none', form: true } }, async (request, reply) => {
    const { token } = parseBody(pageFormSchema, request.body);
    reply.type('text/html; charset=utf-8');
    const row = await findOrderForPayer(deps.db, token);
    if (!row) return reply.code(404).send(missingOrderPage());
    if (row.status !== 'CREATED' && row.status !== 'PAYER_ACTION_REQUIRED') return reply.send(approvalPage(row));
    const baseUrl = requestBaseUrl(deps, request);
    await deps.storage.transaction({ name: 'orders.checkout-approve' }, (trx) =>
      orders.approveOrder({ db: trx, deps, accountId: row.account_id, now: deps.clock.now(row.account_id), baseUrl }, row.id),
    );
    return reply.send(approvedPage(row.id));
  });
}
