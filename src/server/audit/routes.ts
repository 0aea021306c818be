// GET /_payctl/audit: the caller's account, or every account (and the database engine's checks) with the admin key.

import type { FastifyInstance } from 'fastify';
import type { ServerDeps } from '../core/deps.js';
import { callerOf } from '../http/auth.js';
import { runAudit } from './service.js';

export function registerAuditRoutes(app: FastifyInstance, deps: ServerDeps): void {
  app.get('/_payctl/audit', { config: { auth: 'bearer-or-admin' } }, async (request) =>
    runAudit(deps.db, deps.storage.audit, request.isAdmin ? null : callerOf(request).accountId),
  );
}
