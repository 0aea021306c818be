// HTTP for /v2/invoicing/templates: list, create, get, replace (PUT), delete.

import type { FastifyInstance } from 'fastify';
import type { ServerDeps } from '../core/deps.js';
import { runMutation, sendResult, serviceContext } from '../http/idempotency.js';
import { minimalBody, returnPreference } from '../http/prefer.js';
import { parseBody, parsePath, parseQuery } from '../http/validation.js';
import { applyMock } from '../http/mock-response.js';
import { templateIdParams, templateListQuerySchema, templateSchema } from './schema.js';
import * as templates from './templates.js';

export function registerTemplateRoutes(app: FastifyInstance, deps: ServerDeps): void {
  const base = '/v2/invoicing/templates';

  app.get(base, async (request) => {
    applyMock(request);
    const query = parseQuery(templateListQuerySchema, request.query);
    return templates.listTemplates(serviceContext(deps, request), query);
  });

  app.post(base, async (request, reply) => {
    applyMock(request);
    const input = parseBody(templateSchema, request.body);
    const preference = returnPreference(request, 'representation');
    const result = await runMutation(deps, request, { operation: 'invoicing.templates.create' }, async (ctx) => {
      const template = await templates.createTemplate(ctx, input);
      return { status: 201, body: preference === 'representation' ? template : minimalBody(template) };
    });
    return sendResult(reply, result);
  });

  app.get(`${base}/:template_id`, async (request) => {
    applyMock(request);
    const { template_id: id } = parsePath(templateIdParams, request.params);
    return templates.getTemplate(serviceContext(deps, request), id);
  });

  // The spec's "fully update a template": 200, the whole template only with return=representation.
  app.put(`${base}/:template_id`, async (request, reply) => {
    applyMock(request);
    const { template_id: id } = parsePath(templateIdParams, request.params);
    const input = parseBody(templateSchema, request.body);
    const preference = returnPreference(request, 'minimal');
    const result = await runMutation(deps, request, { operation: 'invoicing.templates.replace' }, async (ctx) => {
      const template = await templates.replaceTemplate(ctx, id, input);
      return { status: 200, body: preference === 'representation' ? template : minimalBody(template) };
    });
    return sendResult(reply, result);
  });

  app.delete(`${base}/:template_id`, async (request, reply) => {
    applyMock(request);
    const { template_id: id } = parsePath(templateIdParams, request.params);
    const result = await runMutation(deps, request, { operation: 'invoicing.templates.delete' }, async (ctx) => {
      await templates.deleteTemplate(ctx, id);
      return { status: 204, body: undefined };
    });
    return sendResult(reply, result);
  });
}
