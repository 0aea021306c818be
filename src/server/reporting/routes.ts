// HTTP for the reporting API: GET /v1/reporting/transactions and GET /v1/reporting/balances.

import type { FastifyInstance } from 'fastify';
import type { ServerDeps } from '../core/deps.js';
import { serviceContext } from '../http/idempotency.js';
import { parseBalancesQuery, parseSearchQuery } from './schema.js';
import { listBalances, searchTransactions } from './service.js';

export function registerReportingRoutes(app: FastifyInstance, deps: ServerDeps): void {
  app.get('/v1/reporting/transactions', async (request) => searchTransactions(serviceContext(deps, request), parseSearchQuery(request.query)));
  app.get('/v1/reporting/balances', async (request) => listBalances(serviceContext(deps, request), parseBalancesQuery(request.query)));
}
