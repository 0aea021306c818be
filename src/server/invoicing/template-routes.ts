// HTTP for /v2/invoicing/templates: list, create, get, replace (PUT), delete.

import type { FastifyInstance } from 'fastify';
import type { ServerDeps, ServiceContext } from '../core/deps.js';
import { MUTATION_ROUTE, serviceContext } from '../http/idempotency.js';
import { returnPreference, shapeForPreference } from '../http/prefer.js';
import { parseBody, parsePath, parseQuery } from '../http/validation.js';
import { applyMock } from '../http/mock-response.js';
import { answerChange } from './route-support.js';
import { templateIdParams, templateListQuerySchema, templateSchema } from './schema.js';
import * as templates from './templates.js';

export function registerTemplateRoutes(app: FastifyInstance, deps: ServerDeps): void {
  const base = '/v2/invoicing/templates';

  app.get(base, async (request) => {
    applyMock(request);
    const query = parseQuery(templateListQuerySchema, request.query);
    return templates.listTemplates(serviceContext(deps, request), query);
  });

  app.post(base, MUTATION_ROUTE, async (request, reply) => {
    applyMock(request);
    const input = parseBody(templateSchema, request.body);
    const preference = returnPreference(request, 'representation');
    const create = async (ctx: ServiceContext) => shapeForPreference(await templates.createTemplate(ctx, input), preference);
    return answerChange(deps, request, reply, 'invoicing.templates.create', create, 201);
  });

  app.get(`${base}/:template_id`, async (request) => {
    applyMock(request);
    const { template_id: id } = parsePath(templateIdParams, request.params);
    return templates.getTemplate(serviceContext(deps, request), id);
  });

  // The spec's "fully update a template": 200, the whole template only with return=representation.
  app.put(`${base}/:template_id`, MUTATION_ROUTE, async (request, reply) => {
    applyMock(request);
    const { template_id: id } = parsePath(templateIdParams, request.params);
    const input = parseBody(templateSchema, request.body);
    const preference = returnPreference(request, 'minimal');
    const replace = async (ctx: ServiceContext) => shapeForPreference(await templates.replaceTemplate(ctx, id, input), preference);
    return answerChange(deps, request, reply, 'invoicing.templates.replace', replace);
  });

  app.delete(`${base}/:template_id`, MUTATION_ROUTE, async (request, reply) => {
    applyMock(request);
    const { template_id: id } = parsePath(templateIdParams, request.params);
    return answerChange(deps, request, reply, 'invoicing.templates.delete', (ctx) => templates.deleteTemplate(ctx, id));
  });
}
