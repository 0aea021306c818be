// Every domain the server serves, registered by name. Add a domain here and nowhere else.

import type { FastifyInstance } from 'fastify';
import type { ServerDeps } from './core/deps.js';
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
