// HTTP for /v1/notifications: subscriptions, event types, history, simulation, signatures, certificates.

import type { FastifyInstance } from 'fastify';
import type { ServerDeps } from '../core/deps.js';
import { callerOf } from '../http/auth.js';
import { notFound } from '../http/errors.js';
import { MUTATION_ROUTE, runMutation, sendResult, serviceContext } from '../http/idempotency.js';
import { parseBody, parsePath, parseQuery } from '../http/validation.js';
import { Dispatcher } from './dispatcher.js';
import { EVENT_TYPES } from './event-types.js';
import * as history from './history.js';
import * as lookups from './lookups.js';
import {
  certPathSchema,
  createWebhookSchema,
  eventPathSchema,
  listDeliveriesQuerySchema,
  listEventsQuerySchema,
  listWebhooksQuerySchema,
  lookupPathSchema,
  createLookupSchema,
  patchSchema,
  resendSchema,
  simulateSchema,
  verifySchema,
  webhookPathSchema,
} from './schema.js';
import * as subscriptions from './service.js';
import { CERT_PATH_PREFIX, SigningKeys } from './signing.js';
import type { DeliveryStatus } from './states.js';
import { deleteAccountDeliveries } from './store.js';
import { verifyWebhookSignature } from './verify.js';

const WEBHOOKS = '/v1/notifications/webhooks';
const EVENTS = '/v1/notifications/webhooks-events';
const LOOKUPS = '/v1/notifications/webhooks-lookup';

function registerSubscriptionRoutes(app: FastifyInstance, deps: ServerDeps, dispatcher: Dispatcher): void {
  app.post(WEBHOOKS, MUTATION_ROUTE, async (request, reply) => {
    const body = parseBody(createWebhookSchema, request.body);
    const appId = callerOf(request).appId;
    const result = await runMutation(deps, request, { operation: 'notifications.webhooks.create' }, async (ctx) => ({
      status: 201,
      body: await subscriptions.createWebhook(ctx, appId, body),
    }));
    return sendResult(reply, result);
  });

  app.get(WEBHOOKS, async (request) => {
    const query = parseQuery(listWebhooksQuerySchema, request.query);
    const appId = query.anchor_type === 'APPLICATION' ? callerOf(request).appId : undefined;
    return subscriptions.listWebhooks(serviceContext(deps, request), appId);
  });

  app.get(`${WEBHOOKS}/:webhook_id`, async (request) => {
    const { webhook_id } = parsePath(webhookPathSchema, request.params);
    return subscriptions.getWebhook(serviceContext(deps, request), webhook_id);
  });

  app.get(`${WEBHOOKS}/:webhook_id/event-types`, async (request) => {
    const { webhook_id } = parsePath(webhookPathSchema, request.params);
    return subscriptions.webhookEventTypes(serviceContext(deps, request), webhook_id);
  });

  app.patch(`${WEBHOOKS}/:webhook_id`, MUTATION_ROUTE, async (request, reply) => {
    const { webhook_id } = parsePath(webhookPathSchema, request.params);
    const operations = parseBody(patchSchema, request.body);
    const result = await runMutation(deps, request, { operation: 'notifications.webhooks.update' }, async (ctx) => ({
      status: 200,
      body: await subscriptions.updateWebhook(ctx, webhook_id, operations),
    }));
    return sendResult(reply, result);
  });

  app.delete(`${WEBHOOKS}/:webhook_id`, MUTATION_ROUTE, async (request, reply) => {
    const { webhook_id } = parsePath(webhookPathSchema, request.params);
    const result = await runMutation(deps, request, { operation: 'notifications.webhooks.delete' }, async (ctx) => {
      await subscriptions.deleteWebhook(ctx, webhook_id);
      return { status: 204, body: undefined };
    });
    dispatcher.forget((delivery) => delivery.webhook_id === webhook_id);
    return sendResult(reply, result);
  });

  app.get('/v1/notifications/webhooks-event-types', async () => ({
    event_types: EVENT_TYPES.map((type) => subscriptions.eventTypeView(type.name)),
  }));
}

function registerLookupRoutes(app: FastifyInstance, deps: ServerDeps): void {
  app.post(LOOKUPS, MUTATION_ROUTE, async (request, reply) => {
    parseBody(createLookupSchema, request.body);
    const caller = callerOf(request);
    const result = await runMutation(deps, request, { operation: 'notifications.lookups.create' }, async (ctx) => ({
      status: 201,
      body: await lookups.createLookup(ctx, caller),
    }));
    return sendResult(reply, result);
  });

  app.get(LOOKUPS, async (request) => lookups.listLookups(serviceContext(deps, request)));

  app.get(`${LOOKUPS}/:webhook_lookup_id`, async (request) => {
    const { webhook_lookup_id: id } = parsePath(lookupPathSchema, request.params);
    return lookups.getLookup(serviceContext(deps, request), id);
  });

  app.delete(`${LOOKUPS}/:webhook_lookup_id`, MUTATION_ROUTE, async (request, reply) => {
    const { webhook_lookup_id: id } = parsePath(lookupPathSchema, request.params);
    const result = await runMutation(deps, request, { operation: 'notifications.lookups.delete' }, async (ctx) => {
      await lookups.deleteLookup(ctx, id);
      return { status: 204, body: undefined };
    });
    return sendResult(reply, result);
  });
}

function registerHistoryRoutes(app: FastifyInstance, deps: ServerDeps): void {
  app.get(EVENTS, async (request) => {
    const query = parseQuery(listEventsQuerySchema, request.query);
    return history.listEvents(serviceContext(deps, request), query);
  });

  app.get(`${EVENTS}/:event_id`, async (request) => {
    const { event_id } = parsePath(eventPathSchema, request.params);
    return history.getEvent(serviceContext(deps, request), event_id);
  });

  app.post(`${EVENTS}/:event_id/resend`, MUTATION_ROUTE, async (request, reply) => {
    const { event_id } = parsePath(eventPathSchema, request.params);
    const body = parseBody(resendSchema, request.body);
    const result = await runMutation(deps, request, { operation: 'notifications.events.resend' }, async (ctx) => ({
      status: 202,
      body: await history.resendEvent(ctx, event_id, body.webhook_ids),
    }));
    return sendResult(reply, result);
  });

  app.post('/v1/notifications/simulate-event', MUTATION_ROUTE, async (request, reply) => {
    const body = parseBody(simulateSchema, request.body);
    const result = await runMutation(deps, request, { operation: 'notifications.simulate' }, async (ctx) => ({
      status: 202,
      body: await history.simulateEvent(ctx, body),
    }));
    return sendResult(reply, result);
  });

  app.get('/_payctl/deliveries', async (request) => {
    const query = parseQuery(listDeliveriesQuerySchema, request.query);
    return history.listDeliveries(serviceContext(deps, request), {
      ...(query.event_id !== undefined ? { eventId: query.event_id } : {}),
      ...(query.webhook_id !== undefined ? { webhookId: query.webhook_id } : {}),
      ...(query.status !== undefined ? { status: query.status as DeliveryStatus } : {}),
      limit: query.page_size,
    });
  });
}

function registerSignatureRoutes(app: FastifyInstance, deps: ServerDeps, keys: SigningKeys): void {
  app.post('/v1/notifications/verify-webhook-signature', async (request) => {
    const body = parseBody(verifySchema, request.body);
    return verifyWebhookSignature(deps.db, keys, callerOf(request).accountId, body);
  });

  // Receivers fetch the certificate without credentials, as they do from the public service.
  app.get(`${CERT_PATH_PREFIX}:cert_id`, { config: { auth: 'none' } }, async (request, reply) => {
    const { cert_id } = parsePath(certPathSchema, request.params);
    const key = await keys.byId(cert_id);
    if (!key) throw notFound('cert', cert_id);
    return reply.type('application/x-pem-file').send(key.certificatePem);
  });
}

export function registerNotificationsRoutes(app: FastifyInstance, deps: ServerDeps): void {
  const keys = new SigningKeys(
    deps.storage,
    () => deps.clock.systemNow(),
    () => deps.signingKeySecret,
    (message) => deps.log.warn(message),
  );
  const dispatcher = new Dispatcher(deps, keys);
  registerSubscriptionRoutes(app, deps, dispatcher);
  registerHistoryRoutes(app, deps);
  registerLookupRoutes(app, deps);
  registerSignatureRoutes(app, deps, keys);

  deps.scheduler.register('webhook-delivery', () => dispatcher.pump());
  deps.hooks.onAccountReset.push(async (db, accountId) => {
    dispatcher.forget((delivery) => delivery.account_id === accountId);
    await deleteAccountDeliveries(db, accountId);
  });
  deps.hooks.onClose.push(() => dispatcher.stop());
  app.addHook('onReady', async () => {
    await keys.sealStoredKeys();
    dispatcher.start();
  });
}
