// HTTP for /v2/payments (authorizations, captures, refunds) and the payments control plane.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServerDeps, ServiceContext } from '../core/deps.js';
import { RETENTION_SECONDS, runMutation, sendResult, serviceContext } from '../http/idempotency.js';
import { returnPreference, shapeForPreference } from '../http/prefer.js';
import { parseBody, parsePath } from '../http/validation.js';
import { setKycStatus } from '../oauth/store.js';
import { noExpiryDue, registerExpiryJob, sweepForRequest } from './expiry.js';
import { applyMock } from '../http/mock-response.js';
import type { Resource } from './present.js';
import {
  captureBodySchema,
  idParamsSchema,
  kycBodySchema,
  reauthorizeBodySchema,
  refundBodySchema,
  reviewBodySchema,
} from './schema.js';
import * as payments from './service.js';
import { deletePayments } from './store.js';

const AUTH = '/v2/payments/authorizations/:id';

interface MutationSpec {
  operation: string;
  status: number;
  /** Controls the answer's shape by Prefer (minimal by default). */
  preferable: boolean;
  work: (ctx: ServiceContext) => Promise<Resource | Record<string, unknown>>;
}

async function mutate(deps: ServerDeps, request: FastifyRequest, reply: FastifyReply, spec: MutationSpec) {
  const preference = returnPreference(request);
  await sweepForRequest(deps, request);
  const result = await runMutation(
    deps,
    request,
    { operation: spec.operation, retentionSeconds: RETENTION_SECONDS.payments },
    async (ctx) => {
      const resource = await spec.work(ctx);
      const body = spec.preferable ? shapeForPreference(resource as Resource, preference) : resource;
      return { status: spec.status, body };
    },
  );
  return sendResult(reply, result);
}

async function read(deps: ServerDeps, request: FastifyRequest, work: (ctx: ServiceContext, id: string) => Promise<Resource>) {
  applyMock(request);
  const { id } = parsePath(idParamsSchema, request.params);
  await sweepForRequest(deps, request);
  return work(serviceContext(deps, request), id);
}

export function registerPaymentsRoutes(app: FastifyInstance, deps: ServerDeps): void {
  registerExpiryJob(deps);
  deps.hooks.onAccountReset.push(deletePayments);

  // What these answer depends on the stored rows, the caller's account and the Host header only;
  // the request's sweep is the one other thing, so a kept answer waits for no expiry being due.
  const kept = () => deps.readCache.route((accountId) => noExpiryDue(deps, accountId));
  app.get(AUTH, kept(), (request) => read(deps, request, payments.getAuthorization));
  app.get('/v2/payments/captures/:id', kept(), (request) => read(deps, request, payments.getCapture));
  app.get('/v2/payments/refunds/:id', kept(), (request) => read(deps, request, payments.getRefund));

  app.post(`${AUTH}/capture`, async (request, reply) => {
    const declined = applyMock(request, ['INSTRUMENT_DECLINED']) !== undefined;
    const { id } = parsePath(idParamsSchema, request.params);
    const body = parseBody(captureBodySchema, request.body);
    return mutate(deps, request, reply, {
      operation: 'payments.authorizations.capture',
      status: 200,
      preferable: true,
      work: (ctx) => payments.captureAuthorization(ctx, id, body, { declined }),
    });
  });

  app.post(`${AUTH}/void`, async (request, reply) => {
    applyMock(request);
    const { id } = parsePath(idParamsSchema, request.params);
    return mutate(deps, request, reply, {
      operation: 'payments.authorizations.void',
      status: 200,
      preferable: true,
      work: (ctx) => payments.voidAuthorization(ctx, id),
    });
  });

  app.post(`${AUTH}/reauthorize`, async (request, reply) => {
    applyMock(request);
    const { id } = parsePath(idParamsSchema, request.params);
    const body = parseBody(reauthorizeBodySchema, request.body);
    return mutate(deps, request, reply, {
      operation: 'payments.authorizations.reauthorize',
      status: 201,
      preferable: true,
      work: (ctx) => payments.reauthorizeAuthorization(ctx, id, body),
    });
  });

  app.post('/v2/payments/captures/:id/refund', async (request, reply) => {
    applyMock(request);
    const { id } = parsePath(idParamsSchema, request.params);
    const body = parseBody(refundBodySchema, request.body);
    return mutate(deps, request, reply, {
      operation: 'payments.captures.refund',
      status: 200,
      preferable: true,
      work: (ctx) => payments.refundCapture(ctx, id, body),
    });
  });

  registerPaymentsControlRoutes(app, deps);
}

/** The control plane: identity verification, settling pending captures, reviewing authorizations. */
function registerPaymentsControlRoutes(app: FastifyInstance, deps: ServerDeps): void {
  app.post('/_payctl/accounts/kyc', async (request, reply) => {
    const { status } = parseBody(kycBodySchema, request.body);
    return mutate(deps, request, reply, {
      operation: 'sandbox.accounts.kyc',
      status: 200,
      preferable: false,
      work: async (ctx) => {
        await setKycStatus(ctx.db, ctx.accountId, status);
        return { payer_id: ctx.accountId, kyc_status: status };
      },
    });
  });

  for (const [action, settle] of [
    ['complete', payments.completePendingCapture],
    ['decline', payments.declinePendingCapture],
  ] as const) {
    app.post(`/_payctl/captures/:id/${action}`, async (request, reply) => {
      const { id } = parsePath(idParamsSchema, request.params);
      return mutate(deps, request, reply, {
        operation: `sandbox.captures.${action}`,
        status: 200,
        preferable: false,
        work: (ctx) => settle(ctx, id),
      });
    });
  }

  app.post('/_payctl/authorizations/:id/review', async (request, reply) => {
    const { id } = parsePath(idParamsSchema, request.params);
    const { decision } = parseBody(reviewBodySchema, request.body);
    return mutate(deps, request, reply, {
      operation: 'sandbox.authorizations.review',
      status: 200,
      preferable: false,
      work: (ctx) => payments.reviewAuthorization(ctx, id, decision),
    });
  });
}
