// Who is calling: bearer tokens, the admin key, and platform apps acting for a merchant.

import { timingSafeEqual, createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccountFacts, ServerDeps } from '../core/deps.js';
import {
  NOT_CACHED,
  cachedTokenOwner,
  consentedClockOffset,
  findTokenOwner,
  unconfirmedTokenOwner,
  type TokenCheck,
  type TokenOwner,
} from '../oauth/api.js';
import { ServiceError, serviceError } from './errors.js';
import { AUTH_ASSERTION_HEADERS, REQUEST_ID_HEADERS, boundedHeader } from './headers.js';
import type { RateLimiter } from './rate-limit.js';

export type AuthMode = 'bearer' | 'admin' | 'none' | 'bearer-or-admin';

export interface Caller {
  /** The merchant whose data the request reads and changes. */
  accountId: string;
  /** The account that owns the calling app (differs when acting through an assertion). */
  ownAccountId: string;
  appId: string;
  clientId: string;
  viaAssertion: boolean;
  /** The acting account's row as read with the token; undefined when acting through an assertion (read when needed). */
  account: AccountFacts | undefined;
  /**
   * Set while the caller is this process's memory of the token (PostgreSQL, a route with
   * `tokenCheckedInTransaction`): the request's transaction reads the token again before it commits
   * (http/idempotency.ts), or the answer waits for a lookup (http/token-check.ts).
   */
  unconfirmed?: TokenCheck;
}

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller | null;
    isAdmin: boolean;
  }
  interface FastifyContextConfig {
    auth?: AuthMode;
    /**
     * The route changes state only through `runMutation` (http/idempotency.ts), whose transaction
     * reads the bearer token again before it commits: where the token cache cannot be kept current
     * (PostgreSQL), a token this process has read before is trusted until then, saving the lookup's
     * round trip. Without it, every request looks its token up first.
     */
    tokenCheckedInTransaction?: boolean;
  }
}

export const authFailure = (description: string): ServiceError =>
  serviceError('AUTHENTICATION_FAILURE', 'INVALID_ACCESS_TOKEN', description, { field: 'Authorization', location: 'header' });

function bearerOf(request: FastifyRequest): string {
  const header = boundedHeader(request, ['authorization'], 16_000);
  if (header === undefined) throw authFailure('The Authorization header is missing.');
  const match = /^Bearer ([A-Za-z0-9._~+/=-]+)$/.exec(header);
  if (!match?.[1]) throw authFailure('The Authorization header must be "Bearer <access token>".');
  return match[1];
}

/**
 * The text after `Bearer ` in the Authorization header, unchecked (undefined without that prefix).
 * Enough where the text is then compared with known secrets or tokens; `bearerOf` checks the form.
 */
export function bearerText(headers: IncomingHttpHeaders): string | undefined {
  const header = headers.authorization;
  return typeof header === 'string' && header.startsWith('Bearer ') ? header.slice('Bearer '.length) : undefined;
}

function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

interface AssertionClaims {
  iss: string;
  payer_id: string;
}

function base64UrlJson(part: string): unknown {
  if (!/^[A-Za-z0-9_-]*={0,2}$/.test(part)) throw new Error('not base64url');
  return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
}

/** Parses an unsigned JWT (`alg: none`) naming the platform (`iss`) and the merchant (`payer_id`). */
export function parseAuthAssertion(token: string): AssertionClaims {
  const invalid = (description: string) =>
    serviceError('INVALID_REQUEST', 'INVALID_PARAMETER_SYNTAX', description, {
      field: 'Service-Auth-Assertion',
      location: 'header',
    });
  const parts = token.split('.');
  if (parts.length !== 3 || parts[2] !== '') throw invalid('The assertion must be an unsigned JWT: header.payload. with an empty signature.');
  let header: unknown;
  let payload: unknown;
  try {
    header = base64UrlJson(parts[0] ?? '');
    payload = base64UrlJson(parts[1] ?? '');
  } catch {
    throw invalid('The assertion header and payload must be base64url-encoded JSON objects.');
  }
  const alg = (header as { alg?: unknown } | null)?.alg;
  if (typeof header !== 'object' || header === null || alg !== 'none') {
    throw invalid('The assertion must use "alg": "none".');
  }
  const claims = payload as Partial<AssertionClaims> | null;
  if (typeof claims !== 'object' || claims === null || typeof claims.iss !== 'string' || typeof claims.payer_id !== 'string') {
    throw invalid('The assertion payload must carry "iss" (the platform client id) and "payer_id" (the merchant).');
  }
  return { iss: claims.iss, payer_id: claims.payer_id };
}

/** A token's owner calling for its own account. */
export const ownCaller = (owner: TokenOwner): Caller => ({ ...owner, ownAccountId: owner.accountId, viaAssertion: false });

/** The dispute operations answer a failed permission check with AUTHORIZATION_ERROR (spec 5.5). */
const permissionErrorFor = (request: FastifyRequest): 'AUTHORIZATION_ERROR' | 'NOT_AUTHORIZED' =>
  request.url.startsWith('/v1/customer/disputes') ? 'AUTHORIZATION_ERROR' : 'NOT_AUTHORIZED';

async function consentedCaller(deps: ServerDeps, request: FastifyRequest, caller: Caller, payerId: string): Promise<Caller> {
  const clockOffsetMs = await consentedClockOffset(deps.db, caller.clientId, payerId);
  if (clockOffsetMs === undefined) {
    throw serviceError(permissionErrorFor(request), 'PERMISSION_DENIED', 'You do not have permission to act for this merchant.', {
      field: 'Service-Auth-Assertion',
      location: 'header',
    });
  }
  // The merchant's clock as the database has it now (another replica may have moved it).
  deps.clock.setOffset(payerId, Number(clockOffsetMs));
  return { ...caller, accountId: payerId, viaAssertion: true, account: undefined };
}

/**
 * Consent lets a platform use a merchant's API, not reset its data or move its clock: /_payctl
 * routes refuse an assertion naming another account. whoami is the exception: it changes nothing
 * and answers whom the assertion would act for, which is how a platform checks a consent.
 */
function isControlPlane(request: FastifyRequest): boolean {
  const route = request.routeOptions.url ?? request.url;
  return route.startsWith('/_payctl/') && !(request.method === 'GET' && route === '/_payctl/whoami');
}

/** The account the request acts for: the caller's own, or a merchant's through an assertion (a consent read). */
function resolveActingAccount(deps: ServerDeps, request: FastifyRequest, caller: Caller): Caller | Promise<Caller> {
  const assertion = boundedHeader(request, AUTH_ASSERTION_HEADERS, 10_000);
  if (assertion === undefined) return caller;
  const claims = parseAuthAssertion(assertion);
  if (claims.iss !== caller.clientId) {
    throw serviceError('AUTHENTICATION_FAILURE', 'INVALID_AUTH_ASSERTION', 'The assertion was issued for another client id.', {
      field: 'Service-Auth-Assertion',
      location: 'header',
    });
  }
  if (claims.payer_id === caller.ownAccountId) return caller;
  if (isControlPlane(request)) {
    throw serviceError(
      'NOT_AUTHORIZED',
      'PERMISSION_DENIED',
      'The /_payctl control plane acts only on your own account (or any account with the admin key); an assertion does not extend to it.',
      { field: 'Service-Auth-Assertion', location: 'header' },
    );
  }
  return consentedCaller(deps, request, caller, claims.payer_id);
}

type Done = (error?: Error) => void;

/** done(undefined) would let the request through: whatever was thrown, the hook refuses. */
const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(`authentication failed: ${String(error)}`));

/**
 * Makes the onRequest hook for each auth mode: it sets request.caller / request.isAdmin or refuses
 * the request. The hook is callback-style and finishes synchronously when the token is in the cache
 * and no assertion needs a consent read (almost every request): no promise is made for those.
 */
export function createAuthenticator(deps: ServerDeps, adminKey: () => string, limiter: RateLimiter) {
  function callerFor(request: FastifyRequest, owner: TokenOwner | undefined): Caller | Promise<Caller> {
    if (!owner) throw authFailure('The access token is invalid or has expired.');
    limiter.take(owner.appId);
    return resolveActingAccount(deps, request, ownCaller(owner));
  }

  function authenticateBearer(request: FastifyRequest, checkLater: boolean): Caller | Promise<Caller> {
    const token = bearerOf(request);
    const known = cachedTokenOwner(deps, token);
    if (known !== NOT_CACHED) return callerFor(request, known);
    // Not for an assertion (its consent is read now anyway), nor a merchant with fault rules (the
    // fault hook reads them now anyway).
    if (checkLater && boundedHeader(request, AUTH_ASSERTION_HEADERS, 10_000) === undefined) {
      const seen = unconfirmedTokenOwner(deps, token);
      if (seen !== undefined && !seen.owner.account.hasFaultRules) {
        limiter.take(seen.owner.appId);
        return { ...ownCaller(seen.owner), unconfirmed: seen.check };
      }
    }
    return findTokenOwner(deps, token).then((owner) => callerFor(request, owner));
  }

  function isAdminRequest(request: FastifyRequest): boolean {
    const given = bearerText(request.headers);
    return given !== undefined && sameSecret(given, adminKey());
  }

  /** The bearer's caller (or a promise of it); undefined when the route needs none or the admin key was given. */
  function identify(request: FastifyRequest, mode: AuthMode, checkLater: boolean): Caller | Promise<Caller> | undefined {
    request.caller = null;
    request.isAdmin = false;
    // Header limits hold on every route, before anything else is looked at.
    boundedHeader(request, REQUEST_ID_HEADERS, 10_000);
    if (mode === 'none') return undefined;
    if (mode === 'admin' || mode === 'bearer-or-admin') {
      if (isAdminRequest(request)) {
        request.isAdmin = true;
        return undefined;
      }
      if (mode === 'admin') {
        throw serviceError('NOT_AUTHORIZED', 'PERMISSION_DENIED', 'This control-plane call needs the admin key as the bearer token.', {
          field: 'Authorization',
          location: 'header',
        });
      }
    }
    return authenticateBearer(request, checkLater);
  }

  /** The hook for a route of this auth mode (decided when the route is registered, not per request). */
  return function authenticatorFor(mode: AuthMode, checkLater = false) {
    return function authenticate(request: FastifyRequest, _reply: FastifyReply, done: Done): void {
      let outcome: Caller | Promise<Caller> | undefined;
      try {
        outcome = identify(request, mode, checkLater);
      } catch (error) {
        done(asError(error));
        return;
      }
      if (outcome instanceof Promise) {
        outcome.then(
          (caller) => {
            request.caller = caller;
            done();
          },
          (error: unknown) => done(asError(error)),
        );
        return;
      }
      if (outcome) request.caller = outcome;
      done();
    };
  };
}

/** The caller of a bearer-authenticated route (the hook guarantees it is set). */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw authFailure('The access token is invalid or has expired.');
  return request.caller;
}
