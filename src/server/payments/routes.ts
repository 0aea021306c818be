// HTTP for /v2/payments (authorizations, captures, refunds) and the payments control plane.

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isoSeconds } from '../core/clock.js';
import type { ServerDeps, ServiceContext } from '../core/deps.js';
import { callerOf } from '../http/auth.js';
import { RETENTION_SECONDS, runMutation, sendResult, serviceContext } from '../http/idempotency.js';
import { returnPreference, shapeForPreference } from '../http/prefer.js';
import { parseBody, parsePath } from '../http/validation.js';
import { applyMock } from '../http/mock-response.js';
import { registerExpiryJob } from './expiry.js';
import { OPEN_AUTHORIZATION_STATUSES } from './states.js';
import type { Authorization, PaymentResource } from './present.js';
import {
  captureBodySchema,
  idParamsSchema,
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
  work: (ctx: ServiceContext) => Promise<PaymentResource>;
}

async function mutate(deps: ServerDeps, request: FastifyRequest, reply: FastifyReply, spec: MutationSpec) {
  const preference = returnPreference(request);
  const result = await runMutation(
    deps,
    request,
    { operation: spec.operation, retentionSeconds: RETENTION_SECONDS.payments },
    async (ctx) => {
      const resource = await spec.work(ctx);
      const body = spec.preferable ? shapeForPreference(resource, preference) : resource;
      return { status: spec.status, body };
    },
  );
  return sendResult(reply, result);
}

async function read<T extends PaymentResource>(deps: ServerDeps, request: FastifyRequest, work: (ctx: ServiceContext, id: string) => Promise<T>): Promise<T> {
  applyMock(request);
  const { id } = parsePath(idParamsSchema, request.params);
  return work(serviceContext(deps, request), id);
}

/** An open authorization reads as expired once its expiration time passes, with nothing written: kept until then. */
function keepUntilExpiry(deps: ServerDeps, request: FastifyRequest, authorization: Authorization): void {
  const expiry = authorization.expiration_time;
  if (typeof expiry !== 'string' || !(OPEN_AUTHORIZATION_STATUSES as readonly string[]).includes(authorization.status)) return;
  const accountId = callerOf(request).accountId;
  deps.readCache.keepWhile(request, () => isoSeconds(deps.clock.now(accountId)) < expiry);
}

export function registerPaymentsRoutes(app: FastifyInstance, deps: ServerDeps): void {
  registerExpiryJob(deps);
  deps.hooks.onAccountReset.push(deletePayments);

  // What these answer depends on the stored rows, the caller's account and the Host header, and for
  // an open authorization on the account's clock too: kept until its expiration time at most.
  const kept = () => deps.readCache.route();
  app.get(AUTH, kept(), async (request) => {
    const authorization = await read(deps, request, payments.getAuthorization);
    keepUntilExpiry(deps, request, authorization);
    return authorization;
  });
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

/** The control plane: settling pending captures, reviewing authorizations (identity verification: sandbox/routes.ts). */
function registerPaymentsControlRoutes(app: FastifyInstance, deps: ServerDeps): void {
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
