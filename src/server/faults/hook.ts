// The preHandler that applies fault rules: after authentication and body parsing, before the route
// runs, so a faulted call changes nothing (a delayed one then runs as usual).

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServerDeps } from '../core/deps.js';
import { faultError } from './rules.js';
import { faultFor, keptRules } from './service.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The fault rule that answered (or delayed) this request, for the journal. */
    faultId: string | null;
  }
}

/** Called for a request whose connection a rule drops, before it is destroyed (no answer is sent). */
export type DropObserver = (request: FastifyRequest, reply: FastifyReply) => void;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Only the bearer API is faulted: not the control plane, the token endpoint or the admin key. */
function mayBeFaulted(request: FastifyRequest): boolean {
  if (request.caller === null || request.isAdmin) return false;
  const route = request.routeOptions.url;
  return route !== undefined && !route.startsWith('/_payctl/');
}

/**
 * Installs the preHandler; returns the same step, for a route that runs again on a caller read
 * anew (http/token-check.ts `installTokenChecks`): the merchant may have rules by then.
 */
export function installFaultRules(app: FastifyInstance, deps: ServerDeps, onDrop: DropObserver | undefined): (request: FastifyRequest, reply: FastifyReply) => Promise<void> {
  app.decorateRequest('faultId', null);
  const applyRules = applyFaultRules(deps, onDrop);
  // A merchant known to have no rules (counted on its account, read with the token) costs no read.
  const unfaulted = (request: FastifyRequest): boolean =>
    !mayBeFaulted(request) || request.caller!.account?.hasFaultRules === false || keptRules(deps, request.caller!.accountId)?.length === 0;
  // Callback style, so that a merchant without rules (known to this process) costs no promise.
  app.addHook('preHandler', (request, reply, done) => {
    if (unfaulted(request)) {
      done();
      return;
    }
    applyRules(request, reply).then(
      () => {
        if (!reply.sent) done();
      },
      (error: unknown) => done(error instanceof Error ? error : new Error(String(error))),
    );
  });
  return async (request, reply) => {
    if (!unfaulted(request)) await applyRules(request, reply);
  };
}

function applyFaultRules(deps: ServerDeps, onDrop: DropObserver | undefined) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const caller = request.caller!;
    const path = request.url.split('?', 1)[0] ?? '/';
    const decision = await faultFor(deps, caller.accountId, request.method, path);
    // Kept answers are given before these hooks run: with rules about, every request comes here.
    if (decision.anyRules) deps.readCache.disable();
    const rule = decision.rule;
    if (rule === undefined) return;
    request.faultId = rule.id;
    const respond = rule.respond;
    if ('delay_ms' in respond) {
      await sleep(respond.delay_ms);
      return;
    }
    if ('drop' in respond) {
      onDrop?.(request, reply);
      reply.hijack();
      request.raw.socket.destroy();
      return;
    }
    throw faultError(respond, rule.id);
  };
}
