// Registers the invoicing domain: templates, invoices, the e-mail outbox, account hooks and the
// scheduled-send job.

import type { FastifyInstance } from 'fastify';
import type { ServerDeps } from '../core/deps.js';
import { sendScheduledInvoices } from './actions.js';
import { registerInvoiceRoutes } from './invoice-routes.js';
import { registerPayerViewRoute } from './payer-view-routes.js';
import { registerTemplateRoutes } from './template-routes.js';
import { ensureSystemTemplates, seedMissingSystemTemplates } from './templates.js';
import * as store from './store.js';

export function registerInvoicingRoutes(app: FastifyInstance, deps: ServerDeps): void {
  // System templates are seeded with the account, and at start for accounts older than invoicing:
  // reading templates never writes.
  deps.hooks.onAccountCreated.push((db, accountId) => ensureSystemTemplates(db, deps.ids, accountId, deps.clock.now(accountId)));
  deps.hooks.onStart.push(() => seedMissingSystemTemplates(deps));
  deps.hooks.onAccountReset.push((db, accountId) => store.deleteAccountInvoicing(db, accountId));
  deps.scheduler.register('invoicing.scheduled-sends', async () => {
    await sendScheduledInvoices(deps);
  });
  registerTemplateRoutes(app, deps);
  registerInvoiceRoutes(app, deps);
  registerPayerViewRoute(app, deps);
}
