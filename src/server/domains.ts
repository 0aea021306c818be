// Every domain the server serves, registered by name, and the service interfaces the domains call
// each other through (each domain's api.ts), built once here. Add a domain here and nowhere else.

import type { FastifyInstance } from 'fastify';
import type { ServerDeps } from './core/deps.js';
import { createDisputesApi, type DisputesApi } from './disputes/api.js';
import { createOauthApi, type OauthApi } from './oauth/api.js';
import { createOrdersApi, type OrdersApi } from './orders/api.js';
import { createPaymentsApi, type PaymentsApi } from './payments/api.js';
import { registerDisputesRoutes } from './disputes/routes.js';
import { registerInvoicingRoutes } from './invoicing/routes.js';
import { registerNotificationsRoutes } from './notifications/routes.js';
import { registerAuditRoutes } from './audit/routes.js';
import { registerOauthRoutes } from './oauth/routes.js';
import { registerOrdersRoutes } from './orders/routes.js';
import { registerPaymentsRoutes } from './payments/routes.js';
import { registerPayoutsRoutes } from './payouts/routes.js';
import { registerReportingRoutes } from './reporting/routes.js';
import { registerSandboxRoutes } from './sandbox/routes.js';

export type DomainRegistration = (app: FastifyInstance, deps: ServerDeps) => void;

export const DOMAINS: ReadonlyArray<{ name: string; register: DomainRegistration }> = [
  { name: 'oauth', register: registerOauthRoutes },
  { name: 'sandbox', register: registerSandboxRoutes },
  { name: 'audit', register: registerAuditRoutes },
  // payments and orders
  { name: 'payments', register: registerPaymentsRoutes },
  { name: 'orders', register: registerOrdersRoutes },
  // invoicing
  { name: 'invoicing', register: registerInvoicingRoutes },
  { name: 'disputes', register: registerDisputesRoutes }, // disputes
  { name: 'payouts', register: registerPayoutsRoutes }, // payouts
  { name: 'notifications', register: registerNotificationsRoutes },
  { name: 'reporting', register: registerReportingRoutes },
];

/**
 * What one domain may call of another: each is that domain's api.ts interface, reached through
 * `deps.domains` (no domain imports another's modules; test/server/domain-boundaries.test.ts).
 */
export interface DomainApis {
  oauth: OauthApi;
  payments: PaymentsApi;
  orders: OrdersApi;
  disputes: DisputesApi;
}

export function createDomainApis(): DomainApis {
  return {
    oauth: createOauthApi(),
    payments: createPaymentsApi(),
    orders: createOrdersApi(),
    disputes: createDisputesApi(),
  };
}
