// Where the token cache cannot be kept current (PostgreSQL): a write that starts on this process's
// memory of its bearer token (http/auth.ts `tokenCheckedInTransaction`), and what makes sure that
// memory is checked before anything commits or is answered.

import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { ServerDeps } from '../core/deps.js';
import { transactionGuardEnabled } from '../db/driver.js';
import { findTokenOwner } from '../oauth/api.js';
import { authFailure, ownCaller } from './auth.js';
import { ServiceError } from './errors.js';
import { errorAnswer } from './plumbing.js';

/**
 * The request's transaction read its token again and found the token gone or expired, its owner or
 * account facts changed, or the account's clock moved since this process last read them: the
 * transaction was rolled back, and the route runs again on a caller read anew.
 */
export class CallerChanged extends Error {
  constructor() {
    super('the access token or its account changed since this process read them');
  }
}

/** The request's caller as the database has it now, if it was not confirmed yet; a token no longer valid is refused. */
async function confirmCaller(deps: ServerDeps, request: FastifyRequest): Promise<void> {
  const token = request.caller?.unconfirmed?.accessToken;
  if (token === undefined) return;
  const owner = await findTokenOwner(deps, token);
  // Refused, the request has no caller, as if refused before it ran (the journal keeps it as such).
  request.caller = owner === undefined ? null : ownCaller(owner);
  if (owner === undefined) throw authFailure('The access token is invalid or has expired.');
}

/**
 * Installs, on storage whose process caches cannot be kept current, the answer's check: an answer
 * given while the caller is still unconfirmed (the request failed before its transaction, or had
 * none) waits for a lookup of the token, and a token no longer valid gets 401 instead. Installed
 * before the journal's hooks, so the journal keeps the answer sent. Returns what a route with
 * `tokenCheckedInTransaction` needs around its handler (undefined where no caller is unconfirmed,
 * SQLite): a handler whose transaction found the caller changed (`CallerChanged`) runs again once,
 * on the caller read anew; `beforeRerun` first does what the hooks would have done for that caller
 * (fault rules: a merchant that had none when the token was read may have some now).
 */
export function installTokenChecks(
  app: FastifyInstance,
  deps: ServerDeps,
): ((route: RouteOptions, beforeRerun: (request: FastifyRequest, reply: FastifyReply) => Promise<void>) => void) | undefined {
  if (deps.storage.processCaches) return undefined;
  app.addHook('onSend', (request, reply, payload, done) => {
    const caller = request.caller;
    if (caller?.unconfirmed === undefined) {
      done(null, payload);
      return;
    }
    const replaceWith = (error: unknown) => JSON.stringify(errorAnswer(request, reply, error instanceof ServiceError ? error : new ServiceError('INTERNAL_SERVER_ERROR')));
    // A development check, with the transaction guard (db/driver.ts): a flagged route that succeeds
    // without its transaction confirming the token may have committed on an unconfirmed one.
    if (transactionGuardEnabled && reply.statusCode < 300) {
      request.caller = { ...caller, unconfirmed: undefined };
      request.log.error(`${request.method} ${request.routeOptions.url ?? request.url} has tokenCheckedInTransaction but succeeded without runMutation confirming its token`);
      done(null, replaceWith(undefined));
      return;
    }
    confirmCaller(deps, request).then(
      () => done(null, payload),
      (error: unknown) => {
        if (!(error instanceof ServiceError)) request.log.error({ err: error }, 'the token could not be looked up before the answer');
        done(null, replaceWith(error));
      },
    );
  });
  return (route, beforeRerun) => {
    const handler = route.handler;
    route.handler = async function rerunOnCallerChanged(this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
      try {
        return await handler.call(this, request, reply);
      } catch (error) {
        if (!(error instanceof CallerChanged)) throw error;
      }
      await confirmCaller(deps, request);
      await beforeRerun(request, reply);
      if (reply.sent) return reply;
      return handler.call(this, request, reply);
    };
  };
}
