// HTTP for /v2/invoicing/invoices and its actions, search, next number, and the outbox.

import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ServerDeps, ServiceContext } from '../core/deps.js';
import { MUTATION_ROUTE, runMutation, sendResult, serviceContext } from '../http/idempotency.js';
import { returnPreference, shapeForPreference } from '../http/prefer.js';
import { parseBody, parsePath, parseQuery, queryInteger } from '../http/validation.js';
import * as actions from './actions.js';
import * as invoices from './invoices.js';
import { applyMock } from '../http/mock-response.js';
import { listMessages } from './outbox.js';
import { invoiceQrCode } from './qr.js';
import { answerChange } from './route-support.js';
import {
  invoiceIdParams,
  invoiceSchema,
  listQuerySchema,
  notificationSchema,
  paymentSchema,
  qrSchema,
  refundSchema,
  searchQuerySchema,
  searchSchema,
  transactionParams,
  updateQuerySchema,
} from './schema.js';
import { toSearch } from './search.js';

/** Pages are sent as the JSON text the service made (Fastify would otherwise treat a string as text/plain). */
const JSON_TYPE = 'application/json; charset=utf-8';

const outboxQuerySchema = z.object({
  invoice_id: z.string().min(1).max(100).optional(),
  limit: queryInteger(1, 1000).optional(),
});

export function registerInvoiceRoutes(app: FastifyInstance, deps: ServerDeps): void {
  const base = '/v2/invoicing/invoices';
  const one = `${base}/:invoice_id`;

  app.get(base, async (request, reply) => {
    applyMock(request);
    const query = parseQuery(listQuerySchema, request.query);
    const page = await invoices.listInvoices(serviceContext(deps, request), query);
    return reply.type(JSON_TYPE).send(page.json);
  });

  app.post(base, MUTATION_ROUTE, async (request, reply) => {
    applyMock(request);
    const input = parseBody(invoiceSchema, request.body);
    const preference = returnPreference(request, 'representation');
    const create = async (ctx: ServiceContext) => shapeForPreference(await invoices.createInvoice(ctx, input), preference);
    return answerChange(deps, request, reply, 'invoicing.invoices.create', create, 201);
  });

  app.get(one, async (request) => {
    applyMock(request);
    const { invoice_id: id } = parsePath(invoiceIdParams, request.params);
    return invoices.getInvoice(serviceContext(deps, request), id);
  });

  app.put(one, MUTATION_ROUTE, async (request, reply) => {
    applyMock(request);
    const { invoice_id: id } = parsePath(invoiceIdParams, request.params);
    const query = parseQuery(updateQuerySchema, request.query);
    const input = parseBody(invoiceSchema, request.body);
    const preference = returnPreference(request, 'representation');
    return answerChange(deps, request, reply, 'invoicing.invoices.replace', async (ctx) => {
      const { resource } = await invoices.replaceInvoice(ctx, id, input);
      await actions.notifyUpdate(ctx, id, { toRecipient: query.send_to_recipient ?? true, toInvoicer: query.send_to_invoicer ?? true });
      return shapeForPreference(resource, preference);
    });
  });

  app.delete(one, MUTATION_ROUTE, async (request, reply) => {
    applyMock(request);
    const { invoice_id: id } = parsePath(invoiceIdParams, request.params);
    return answerChange(deps, request, reply, 'invoicing.invoices.delete', (ctx) => invoices.deleteInvoice(ctx, id));
  });

  app.post(`${one}/send`, MUTATION_ROUTE, async (request, reply) => {
    applyMock(request);
    const { invoice_id: id } = parsePath(invoiceIdParams, request.params);
    const notification = parseBody(notificationSchema, request.body);
    const result = await runMutation(deps, request, { operation: 'invoicing.invoices.send' }, (ctx) => actions.sendInvoice(ctx, id, notification));
    return sendResult(reply, result);
  });

  for (const [verb, act] of [
    ['remind', actions.remindInvoice],
    ['cancel', actions.cancelInvoice],
  ] as const) {
    app.post(`${one}/${verb}`, MUTATION_ROUTE, async (request, reply) => {
      applyMock(request);
      const { invoice_id: id } = parsePath(invoiceIdParams, request.params);
      const notification = parseBody(notificationSchema, request.body);
      return answerChange(deps, request, reply, `invoicing.invoices.${verb}`, (ctx) => act(ctx, id, notification));
    });
  }

  // The spec's "record a payment (a refund) for an invoice": 200 { payment_id } ({ refund_id }); and its deletion.
  const transactionRoutes = <S extends z.ZodType>(
    kind: 'payments' | 'refunds',
    schema: S,
    record: (ctx: ServiceContext, id: string, input: z.output<S>) => Promise<object>,
    remove: (ctx: ServiceContext, id: string, transactionId: string) => Promise<void>,
  ) => {
    app.post(`${one}/${kind}`, MUTATION_ROUTE, async (request, reply) => {
      applyMock(request);
      const { invoice_id: id } = parsePath(invoiceIdParams, request.params);
      const input = parseBody(schema, request.body);
      return answerChange(deps, request, reply, `invoicing.invoices.${kind}`, (ctx) => record(ctx, id, input));
    });
    app.delete(`${one}/${kind}/:transaction_id`, MUTATION_ROUTE, async (request, reply) => {
      applyMock(request);
      const params = parsePath(transactionParams, request.params);
      return answerChange(deps, request, reply, `invoicing.invoices.${kind}-delete`, (ctx) => remove(ctx, params.invoice_id, params.transaction_id));
    });
  };
  transactionRoutes('payments', paymentSchema, actions.recordPayment, actions.deletePayment);
  transactionRoutes('refunds', refundSchema, actions.recordRefund, actions.deleteRefund);

  // PNG bytes by default; `Accept: text/plain` gives the same PNG Base64-encoded, as the public API does.
  app.post(`${one}/generate-qr-code`, async (request, reply) => {
    applyMock(request);
    const { invoice_id: id } = parsePath(invoiceIdParams, request.params);
    const options = parseBody(qrSchema, request.body);
    const png = await invoiceQrCode(serviceContext(deps, request), id, options);
    const accept = request.headers.accept ?? '';
    if (/text\/plain/i.test(accept) && !/image\/png/i.test(accept)) return reply.type('text/plain').send(png.toString('base64'));
    return reply.type('image/png').send(png);
  });

  app.post('/v2/invoicing/generate-next-invoice-number', MUTATION_ROUTE, async (request, reply) => {
    applyMock(request);
    return answerChange(deps, request, reply, 'invoicing.generate-next-invoice-number', (ctx) => invoices.generateNextNumber(ctx));
  });

  app.post('/v2/invoicing/search-invoices', async (request, reply) => {
    applyMock(request);
    const query = parseQuery(searchQuerySchema, request.query);
    const search = toSearch(parseBody(searchSchema, request.body));
    const page = await invoices.searchInvoices(serviceContext(deps, request), search, query);
    return reply.type(JSON_TYPE).send(page.json);
  });

  app.get('/_payctl/outbox', async (request) => {
    const query = parseQuery(outboxQuerySchema, request.query);
    return listMessages(serviceContext(deps, request), {
      limit: query.limit ?? 100,
      ...(query.invoice_id !== undefined ? { invoiceId: query.invoice_id } : {}),
    });
  });
}
