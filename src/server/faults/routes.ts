// The /_payctl/faults control plane: fault rules of the caller's merchant (the admin key: everyone's).

import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { ServerDeps } from '../core/deps.js';
import { ServiceError } from '../http/errors.js';
import { parseBody, parsePath } from '../http/validation.js';
import { ruleSchema, type RouteRef } from './rules.js';
import * as faults from './service.js';

const idSchema = z.object({ id: z.string().min(1).max(64) });

/** The caller's merchant, or undefined for the admin key (every merchant). */
function scopeOf(request: FastifyRequest): string | undefined {
  if (request.isAdmin) return undefined;
  if (!request.caller) throw new ServiceError('AUTHENTICATION_FAILURE');
  return request.caller.accountId;
}

export function registerFaultRoutes(app: FastifyInstance, deps: ServerDeps, routes: readonly RouteRef[]): void {
  const config = { auth: 'bearer-or-admin' as const };
  faults.deleteRulesOnReset(deps);

  app.post('/_payctl/faults', { config }, async (request, reply) => {
    const accountId = scopeOf(request);
    if (accountId === undefined) {
      throw new ServiceError('INVALID_REQUEST', [
        { issue: 'MISSING_REQUIRED_PARAMETER', location: 'header', field: 'Authorization', description: "A rule belongs to a merchant: create it with the merchant's access token." },
      ]);
    }
    const input = parseBody(ruleSchema, request.body);
    return reply.code(201).send(await faults.createRule(deps, accountId, input, routes));
  });

  app.get('/_payctl/faults', { config }, async (request) => ({ items: await faults.listRules(deps, scopeOf(request)) }));

  app.get('/_payctl/faults/:id', { config }, async (request) => {
    const { id } = parsePath(idSchema, request.params);
    return faults.getRule(deps, id, scopeOf(request));
  });

  app.delete('/_payctl/faults/:id', { config }, async (request, reply) => {
    const { id } = parsePath(idSchema, request.params);
    await faults.deleteRule(deps, id, scopeOf(request));
    return reply.code(204).send();
  });

  app.delete('/_payctl/faults', { config }, async (request, reply) => {
    await faults.deleteRules(deps, scopeOf(request));
    return reply.code(204).send();
  });
}
