// What the invoice and template routes share: a change run as the request's one transaction, then
// answered.

import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ServerDeps, ServiceContext } from '../core/deps.js';
import { runMutation, sendResult } from '../http/idempotency.js';

/**
 * Runs `work` as the request's mutation under `operation` (request id, transaction, stored answer)
 * and answers `status` with the body it returns, or 204 without a body when it returns none.
 */
export async function answerChange(
  deps: ServerDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  operation: string,
  work: (ctx: ServiceContext) => Promise<object | void>,
  status = 200,
): Promise<FastifyReply> {
  const result = await runMutation(deps, request, { operation }, async (ctx) => {
    const body = await work(ctx);
    return body === undefined ? { status: 204, body: undefined } : { status, body };
  });
  return sendResult(reply, result);
}
