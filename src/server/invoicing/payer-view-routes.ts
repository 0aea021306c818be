// GET /invoice/p/{id}: the page a payer opens from send's link, the e-mail or the QR code.

import type { FastifyInstance } from 'fastify';
import type { ServerDeps } from '../core/deps.js';
import { parsePath } from '../http/validation.js';
import { isVisibleToPayer, missingInvoicePage, payerViewPage } from './payer-page.js';
import { statusOf, viewOf } from './resource.js';
import { invoiceIdParams } from './schema.js';
import { findInvoiceForPayer } from './store.js';

export function registerPayerViewRoute(app: FastifyInstance, deps: ServerDeps): void {
  app.get('/invoice/p/:invoice_id', { config: { auth: 'none' } }, async (request, reply) => {
    const { invoice_id: id } = parsePath(invoiceIdParams, request.params);
    const row = await findInvoiceForPayer(deps.db, id);
    reply.type('text/html; charset=utf-8');
    // A draft or a scheduled invoice was never sent: its link answers as an unknown one would.
    if (!row || !isVisibleToPayer(statusOf(row))) return reply.code(404).send(missingInvoicePage());
    return reply.send(payerViewPage(viewOf(row)));
  });
}
