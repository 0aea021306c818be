// HTTP for /v1/notifications: subscriptions, event types, history, simulation, signatures, certificates.

import type { FastifyInstance } from 'fastify';
import type { ServerDeps } from '../core/deps.js';
import { callerOf } from '../http/auth.js';
import { runMutation, sendResult, serviceContext } from '../http/idempotency.js';
import { parseBody, parsePath, parseQuery } from '../http/validation.js';
import { EVENT_TYPES } from './event-types.js';
import { createWebhookSchema, listWebhooksQuerySchema, patchSchema, webhookPathSchema } from './schema.js';
import * as subscriptions from './service.js';

const WEBHOOKS = '/v1/notifications/webhooks';

function registerSubscriptionRoutes(app: FastifyInstance, deps: ServerDeps): void {
  app.post(WEBHOOKS, async (request, reply) => {
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

  app.patch(`${WEBHOOKS}/:webhook_id`, async (request, reply) => {
    const { webhook_id } = parsePath(webhookPathSchema, request.params);
    const operations = parseBody(patchSchema, request.body);
    const result = await runMutation(deps, request, { operation: 'notifications.webhooks.update' }, async (ctx) => ({
      status: 200,
      body: await subscriptions.updateWebhook(ctx, webhook_id, operations),
    }));
    return sendResult(reply, result);
  });

  app.delete(`${WEBHOOKS}/:webhook_id`, async (request, reply) => {
    const { webhook_id } = parsePath(webhookPathSchema, request.params);
    const result = await runMutation(deps, request, { operation: 'notifications.webhooks.delete' }, async (ctx) => {
      await subscriptions.deleteWebhook(ctx, webhook_id);
      return { status: 204, body: undefined };
    });
    return sendResult(reply, result);
  });

  app.get('/v1/notifications/webhooks-event-types', async () => ({
    event_types: EVENT_TYPES.map((type) => subscriptions.eventTypeView(type.name)),
  }));
}

export function registerNotificationsRoutes(app: FastifyInstance, deps: ServerDeps): void {
  registerSubscriptionRoutes(app, deps);
}
