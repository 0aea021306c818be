// HTTP for disputes: the public /v1/customer/disputes API, document downloads, and the buyer's
// side on the control plane. Multipart parsing is registered in this plugin's scope only.

import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { ServerDeps, ServiceContext } from '../core/deps.js';
import { notFound, serviceError } from '../http/errors.js';
import { MUTATION_ROUTE, runMutation, sendResult, serviceContext } from '../http/idempotency.js';
import { link } from '../http/links.js';
import { returnPreference } from '../http/prefer.js';
import { parseBody } from '../http/validation.js';
import { actAsBuyer, openDispute, showForBuyer } from './buyer.js';
import { registerDeadlineJob, settleDueDeadline } from './deadlines.js';
import { patchDispute } from './contact.js';
import { MULTIPART_PLUGIN_LIMITS, readActionBody, type UploadedFile } from './files.js';
import { loadDispute } from './lifecycle.js';
import { listDisputes, parseListQuery } from './list.js';
import { disputePath, type DisputeResource } from './render.js';
import * as schema from './schema.js';
import * as service from './service.js';
import { simulatedErrorFor, type DisputeOperation } from './simulation.js';
import * as store from './store.js';

const idOf = (request: FastifyRequest): string => (request.params as { id: string }).id;

/** Runs first on its route (after authentication): an ERRDIS value answers its error, nothing else happens. */
function simulation(operation: DisputeOperation, valueOf: (request: FastifyRequest) => unknown) {
  return async (request: FastifyRequest): Promise<void> => {
    const error = simulatedErrorFor(operation, valueOf(request));
    if (error) throw error;
  };
}

interface ActionRoute<S extends z.ZodType> {
  action: string;
  simulate?: DisputeOperation;
  schema: S;
  files: boolean;
  run: (ctx: ServiceContext, id: string, input: z.output<S>, files: UploadedFile[]) => Promise<DisputeResource>;
}

function registerAction<S extends z.ZodType>(scope: FastifyInstance, deps: ServerDeps, route: ActionRoute<S>): void {
  const onRequest = route.simulate ? [simulation(route.simulate, idOf)] : [];
  // Not MUTATION_ROUTE: the handler reads its multipart body from the request stream, once.
  scope.post(`/v1/customer/disputes/:id/${route.action}`, { onRequest }, async (request, reply) => {
    const id = idOf(request);
    // An unknown dispute is answered as such whatever the body holds.
    await loadDispute(serviceContext(deps, request), id);
    const body = await readActionBody(request, { filesAllowed: route.files });
    const input = parseBody(route.schema, body.input);
    const representation = returnPreference(request) === 'representation';
    const result = await runMutation(deps, request, { operation: `disputes.${route.action}`, fingerprint: body.fingerprint }, async (ctx) => {
      await settleDueDeadline(ctx, id);
      const resource = await route.run(ctx, id, input, body.files);
      return { status: 200, body: representation ? resource : { links: [link(ctx.baseUrl, disputePath(id), 'self', 'GET')] } };
    });
    return sendResult(reply, result);
  });
}

function registerPublicRoutes(scope: FastifyInstance, deps: ServerDeps): void {
  scope.get(
    '/v1/customer/disputes',
    { onRequest: [simulation('list', (request) => (request.query as Record<string, unknown>).disputed_transaction_id)] },
    async (request) => {
      const ctx = serviceContext(deps, request);
      return listDisputes(ctx, parseListQuery(request.query, ctx.now));
    },
  );
  scope.get('/v1/customer/disputes/:id', { onRequest: [simulation('show', idOf)] }, async (request) => {
    return service.showDispute(serviceContext(deps, request), idOf(request));
  });
  scope.get('/v1/customer/disputes/:id/documents/:document_id', async (request, reply) => sendDocument(deps, request, reply));

  registerAction(scope, deps, { action: 'send-message', simulate: 'send-message', schema: schema.sendMessageSchema, files: true, run: service.sendMessage });
  registerAction(scope, deps, { action: 'make-offer', simulate: 'make-offer', schema: schema.makeOfferSchema, files: false, run: (ctx, id, input) => service.makeOffer(ctx, id, input) });
  registerAction(scope, deps, { action: 'accept-claim', simulate: 'accept-claim', schema: schema.acceptClaimSchema, files: true, run: service.acceptClaim });
  registerAction(scope, deps, { action: 'provide-evidence', simulate: 'provide-evidence', schema: schema.evidencesBodySchema, files: true, run: service.provideEvidence });
  registerAction(scope, deps, { action: 'escalate', simulate: 'escalate', schema: schema.escalateSchema, files: false, run: (ctx, id, input) => service.escalate(ctx, id, input) });
  registerAction(scope, deps, { action: 'appeal', simulate: 'appeal', schema: schema.evidencesBodySchema, files: true, run: service.appeal });
  registerAction(scope, deps, {
    action: 'acknowledge-return-item',
    simulate: 'acknowledge-return-item',
    schema: schema.acknowledgeReturnSchema,
    files: true,
    run: service.acknowledgeReturnItem,
  });
  registerAction(scope, deps, { action: 'adjudicate', schema: schema.adjudicateSchema, files: false, run: (ctx, id, input) => service.adjudicate(ctx, id, input) });
  registerAction(scope, deps, {
    action: 'require-evidence',
    schema: schema.requireEvidenceSchema,
    files: false,
    run: (ctx, id, input) => service.requireEvidence(ctx, id, input),
  });

  registerAction(scope, deps, {
    action: 'provide-supporting-info',
    schema: schema.supportingInfoSchema,
    files: true,
    run: service.provideSupportingInfo,
  });
  scope.patch('/v1/customer/disputes/:id', MUTATION_ROUTE, async (request, reply) => {
    const id = idOf(request);
    await loadDispute(serviceContext(deps, request), id);
    const operations = parseBody(schema.disputePatchSchema, request.body);
    const result = await runMutation(deps, request, { operation: 'disputes.patch' }, async (ctx) => {
      await settleDueDeadline(ctx, id);
      await patchDispute(ctx, id, operations);
      return { status: 204, body: undefined };
    });
    return sendResult(reply, result);
  });

  // The buyer's actions exist in the public API; a merchant's token is never the buyer.
  for (const action of ['accept-offer', 'deny-offer']) {
    scope.post(`/v1/customer/disputes/:id/${action}`, async (request) => {
      await loadDispute(serviceContext(deps, request), idOf(request));
      throw serviceError('FORBIDDEN', 'PERMISSION_DENIED', `Only the buyer can ${action.replace('-', ' ')}; as the seller, see the dispute's links for your actions.`);
    });
  }
}

async function sendDocument(deps: ServerDeps, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const ctx = serviceContext(deps, request);
  const { id, document_id: documentId } = request.params as { id: string; document_id: string };
  const document = await store.findDocument(ctx.db, ctx.accountId, id, documentId);
  if (!document) throw notFound('document', documentId);
  const asciiName = document.name.replace(/[^\x20-\x7e]/g, '_');
  return reply
    .type(document.content_type)
    .header('content-disposition', `attachment; filename="${asciiName}"; filename*=UTF-8''${encodeURIComponent(document.name)}`)
    .header('x-content-type-options', 'nosniff')
    .send(Buffer.from(document.content));
}

function registerControlRoutes(scope: FastifyInstance, deps: ServerDeps): void {
  scope.post('/_payctl/disputes', async (request, reply) => {
    const input = parseBody(schema.openDisputeSchema, request.body);
    const result = await runMutation(deps, request, { operation: 'disputes.open' }, async (ctx) => ({ status: 201, body: await openDispute(ctx, input) }));
    return sendResult(reply, result);
  });
  scope.get('/_payctl/disputes/:id', async (request) => {
    return showForBuyer(serviceContext(deps, request), idOf(request));
  });
  scope.post('/_payctl/disputes/:id/buyer', async (request, reply) => {
    const input = parseBody(schema.buyerActionSchema, request.body);
    const result = await runMutation(deps, request, { operation: 'disputes.buyer' }, async (ctx) => {
      await settleDueDeadline(ctx, idOf(request));
      return { status: 200, body: await actAsBuyer(ctx, idOf(request), input) };
    });
    return sendResult(reply, result);
  });
}

export function registerDisputesRoutes(app: FastifyInstance, deps: ServerDeps): void {
  registerDeadlineJob(deps);
  deps.hooks.onAccountReset.push((db, accountId) => store.deleteAccountDisputes(db, accountId));
  app.register(async (scope) => {
    await scope.register(multipart, { limits: MULTIPART_PLUGIN_LIMITS, throwFileSizeLimit: false });
    registerPublicRoutes(scope, deps);
    registerControlRoutes(scope, deps);
  });
}
