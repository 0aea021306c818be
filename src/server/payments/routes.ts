// HTTP for /v2/payments (authorizations, captures, refunds) and the payments control plane.

import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { isoSeconds } from '../core/clock.js';
import type { ServerDeps, ServiceContext } from '../core/deps.js';
import { callerOf } from '../http/auth.js';
import { MUTATION_ROUTE, RETENTION_SECONDS, runMutation, sendResult, serviceContext } from '../http/idempotency.js';
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

interface PaymentAction<S extends z.ZodType> {
  operation: string;
  /** 200 unless given. */
  status?: number;
  /** The request body's schema; none: the body is not read. */
  body?: S;
  /** Mock-response codes the service acts on itself (the others answer their simulated error). */
  mockOutcomes?: readonly string[];
  /**
   * A control-plane route: the mock header is not read, and the answer is the whole resource
   * (the API's routes shape it by Prefer, minimal by default).
   */
  control?: boolean;
  work: (ctx: ServiceContext, id: string, body: z.output<S>, mocked: string | undefined) => Promise<PaymentResource>;
}

/** A POST on one payment resource (`:id` in the path): one service call in the request's transaction. */
function postOnPayment<S extends z.ZodType>(app: FastifyInstance, deps: ServerDeps, path: string, action: PaymentAction<S>): void {
  app.post(path, MUTATION_ROUTE, async (request, reply) => {
    const mocked = action.control ? undefined : applyMock(request, action.mockOutcomes);
    const { id } = parsePath(idParamsSchema, request.params);
    const body = action.body ? parseBody(action.body, request.body) : undefined;
    const preference = returnPreference(request);
    const result = await runMutation(deps, request, { operation: action.operation, retentionSeconds: RETENTION_SECONDS.payments }, async (ctx) => {
      const resource = await action.work(ctx, id, body as z.output<S>, mocked);
      return { status: action.status ?? 200, body: action.control ? resource : shapeForPreference(resource, preference) };
    });
    return sendResult(reply, result);
  });
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

  postOnPayment(app, deps, `${AUTH}/capture`, {
    operation: 'payments.authorizations.capture',
    body: captureBodySchema,
    mockOutcomes: ['INSTRUMENT_DECLINED'],
    work: (ctx, id, body, mocked) => payments.captureAuthorization(ctx, id, body, { declined: mocked !== undefined }),
  });
  postOnPayment(app, deps, `${AUTH}/void`, {
    operation: 'payments.authorizations.void',
    work: (ctx, id) => payments.voidAuthorization(ctx, id),
  });
  postOnPayment(app, deps, `${AUTH}/reauthorize`, {
    operation: 'payments.authorizations.reauthorize',
    status: 201,
    body: reauthorizeBodySchema,
    work: (ctx, id, body) => payments.reauthorizeAuthorization(ctx, id, body),
  });
  postOnPayment(app, deps, '/v2/payments/captures/:id/refund', {
    operation: 'payments.captures.refund',
    body: refundBodySchema,
    work: (ctx, id, body) => payments.refundCapture(ctx, id, body),
  });

  registerPaymentsControlRoutes(app, deps);
}

/** The control plane: settling pending captures, reviewing authorizations (identity verification: sandbox/routes.ts). */
function registerPaymentsControlRoutes(app: FastifyInstance, deps: ServerDeps): void {
  for (const [action, settle] of [
    ['complete', payments.completePendingCapture],
    ['decline', payments.declinePendingCapture],
  ] as const) {
    postOnPayment(app, deps, `/_payctl/captures/:id/${action}`, {
      operation: `sandbox.captures.${action}`,
      control: true,
      work: (ctx, id) => settle(ctx, id),
    });
  }
  postOnPayment(app, deps, '/_payctl/authorizations/:id/review', {
    operation: 'sandbox.authorizations.review',
    control: true,
    body: reviewBodySchema,
    work: (ctx, id, { decision }) => payments.reviewAuthorization(ctx, id, decision),
  });
}
