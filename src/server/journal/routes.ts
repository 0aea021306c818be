// The /_payctl/requests control plane: the request journal of the caller's merchant (the admin key: everyone's).

import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { ServerDeps } from '../core/deps.js';
import { ServiceError } from '../http/errors.js';
import { parsePath, parseQuery, queryInteger, utcTimestampSchema } from '../http/validation.js';
import type { RequestJournal } from './recorder.js';
import * as journalService from './service.js';

const listQuerySchema = z.object({
  method: z.string().regex(/^[A-Za-z]{3,7}$/).optional(),
  path: z.string().min(1).max(500).regex(/^\//, 'Expected a path starting with "/".').optional(),
  status: z.string().max(3).optional(),
  since: utcTimestampSchema().optional(),
  request_id: z.string().min(1).max(10_000).optional(),
  page_size: queryInteger(1, 1000).optional(),
  before: z.string().max(40).optional(),
  after: z.string().max(40).optional(),
  account_id: z.string().min(1).max(64).optional(),
});
const idSchema = z.object({ id: z.string().min(1).max(40) });

/** The caller's merchant, or undefined for the admin key (every merchant). */
function scopeOf(request: FastifyRequest): string | undefined {
  if (request.isAdmin) return undefined;
  if (!request.caller) throw new ServiceError('AUTHENTICATION_FAILURE');
  return request.caller.accountId;
}

export function registerJournalRoutes(app: FastifyInstance, deps: ServerDeps, journal: RequestJournal | undefined): void {
  const config = { auth: 'bearer-or-admin' as const };

  app.get('/_payctl/requests', { config }, async (request) => {
    const query = parseQuery(listQuerySchema, request.query);
    const scope = scopeOf(request);
    return journalService.listEntries(deps, journal, scope, {
      pageSize: query.page_size ?? 50,
      ...(query.method !== undefined ? { method: query.method } : {}),
      ...(query.path !== undefined ? { path: query.path } : {}),
      ...(query.status !== undefined ? { status: query.status } : {}),
      ...(query.since !== undefined ? { since: query.since } : {}),
      ...(query.request_id !== undefined ? { requestId: query.request_id } : {}),
      ...(query.before !== undefined ? { before: query.before } : {}),
      ...(query.after !== undefined ? { after: query.after } : {}),
      ...(query.account_id !== undefined && scope === undefined ? { accountId: query.account_id } : {}),
    });
  });

  app.get('/_payctl/requests/:id', { config }, async (request) => {
    const { id } = parsePath(idSchema, request.params);
    return journalService.getEntry(deps, journal, scopeOf(request), id);
  });

  app.delete('/_payctl/requests', { config }, async (request, reply) => {
    const query = parseQuery(z.object({ account_id: z.string().min(1).max(64).optional() }), request.query);
    const scope = scopeOf(request) ?? query.account_id;
    await journalService.clearEntries(deps, journal, scope);
    return reply.code(204).send();
  });
}
