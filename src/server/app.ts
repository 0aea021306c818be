// Builds the Fastify app: plumbing, authentication on every route, and each domain's routes.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import type { ServerDeps } from './core/deps.js';
import { DOMAINS } from './domains.js';
import { createAuthenticator } from './http/auth.js';
import { installTokenChecks } from './http/token-check.js';
import { RouteIndex, answerClientError, installPlumbing, sendFrameworkError } from './http/plumbing.js';
import { createRateLimiter } from './http/rate-limit.js';
import { installFaultRules } from './faults/hook.js';
import { registerFaultRoutes } from './faults/routes.js';
import { installJournal } from './journal/hooks.js';
import type { RequestJournal } from './journal/recorder.js';
import { registerJournalRoutes } from './journal/routes.js';

export interface AppOptions {
  adminKey: () => string;
  logLevel: string;
  /** Where log lines go (stderr by default). */
  logDestination?: { write(line: string): void };
  /** Records every request (journal/); undefined with --no-journal. */
  journal?: RequestJournal;
}

export interface RouteInfo {
  method: string;
  url: string;
  auth: string;
}

/** Every route the app serves (each GET route also answers HEAD), for tests that walk the whole API. */
export const routeList = new WeakMap<FastifyInstance, RouteInfo[]>();

/**
 * Routes validate with zod (http/validation.ts) and answer with JSON.stringify: none declares a JSON
 * schema. Fastify's default compilers (ajv, fast-json-stringify) were created on every start all the
 * same (~5 ms of it); these stand in for them and refuse loudly if a route ever brings a schema.
 */
function noJsonSchemas(): never {
  throw new Error('payctl routes validate with zod; Fastify JSON schemas are not compiled');
}
const noSchemaCompilers = { buildValidator: () => noJsonSchemas, buildSerializer: () => noJsonSchemas };

/** Marks a HEAD request that is routed as GET (below), so that the log still says HEAD. */
const SERVED_AS_GET = Symbol('payctl.servedAsGet');
type HeadAsGet = IncomingMessage & { [SERVED_AS_GET]?: true };

/** The request in log lines: Fastify's own fields, with the method the client sent. */
function requestForLog(request: FastifyRequest): Record<string, unknown> {
  return {
    method: (request.raw as HeadAsGet)[SERVED_AS_GET] ? 'HEAD' : request.method,
    url: request.url,
    version: request.headers['accept-version'],
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/** Headers may carry a 16,000-character bearer token and 10,000-character assertions. */
const MAX_HEADER_BYTES = 64 * 1024;

export function buildApp(deps: ServerDeps, options: AppOptions): FastifyInstance {
  const app = Fastify({
    logger: { level: options.logLevel, stream: options.logDestination ?? process.stderr, serializers: { req: requestForLog } },
    bodyLimit: deps.config.bodyLimit,
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    frameworkErrors: sendFrameworkError,
    clientErrorHandler: answerClientError,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    schemaController: { compilersFactory: noSchemaCompilers },
    exposeHeadRoutes: false,
    // Fastify's plugin loader arms a timer for each plugin and each route (~85) to report one that
    // never finishes loading: ~3-4 ms of every start. The plugins here (our domains' set-up and
    // @fastify/multipart) register synchronously; without the timer, one that never called back would
    // hang the start instead of failing it after 10 s.
    pluginTimeout: 0,
    serverFactory: (handler) =>
      createServer(
        {
          maxHeaderSize: MAX_HEADER_BYTES,
          headersTimeout: deps.config.headersTimeoutMs,
          requestTimeout: deps.config.requestTimeoutMs,
          keepAliveTimeout: 5_000,
          // Node checks the two timeouts above only this often (30 s by default).
          connectionsCheckingInterval: Math.min(1_000, deps.config.headersTimeoutMs),
        },
        (request: IncomingMessage, response: ServerResponse) => {
          // No answer of this API may be stored by a cache. Set on the raw response, so every answer
          // (errors and 404s too) carries it without an onSend hook run per request.
          response.setHeader('cache-control', 'no-store');
          // HEAD is served by the GET route: Node sends no body in answer to a HEAD request, whatever
          // the handler writes (decided when it made the response), and keeps the headers, length
          // included. Fastify's own way, a HEAD twin of every GET route, doubled route registration:
          // ~9 ms of every start.
          if (request.method === 'HEAD') {
            request.method = 'GET';
            (request as HeadAsGet)[SERVED_AS_GET] = true;
          }
          if (deps.readCache.answer(request, response)) return;
          handler(request, response);
        },
      ),
  });
  const routes = new RouteIndex();
  const listed: RouteInfo[] = [];
  const authenticatorFor = createAuthenticator(
    deps,
    options.adminKey,
    createRateLimiter(deps.config.rateLimitPerSecond, deps.config.rateLimitBurst),
  );

  app.decorateRequest('caller', null);
  app.decorateRequest('isAdmin', false);
  // Before any route: the hooks hold for every route (children included). The token check's answer
  // hook goes before the journal's (installTokenChecks).
  const checkTokenLater = installTokenChecks(app, deps);
  installPlumbing(app, routes);
  const recordDrop = options.journal === undefined ? undefined : installJournal(app, deps, options.journal);
  const applyFaultsAgain = installFaultRules(app, deps, recordDrop);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    routes.add(route.url, methods);
    const auth = route.config?.auth ?? 'bearer';
    for (const method of methods) listed.push({ method, url: route.url, auth });
    const existing = route.onRequest ? (Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest]) : [];
    const checkLater = checkTokenLater !== undefined && route.config?.tokenCheckedInTransaction === true;
    route.onRequest = [authenticatorFor(auth, checkLater), ...existing];
    if (checkLater) checkTokenLater(route, applyFaultsAgain);
  });
  routeList.set(app, listed);
  // Once closing, Fastify answers 503: no kept answer may be given instead.
  app.addHook('preClose', (done) => {
    deps.readCache.disable();
    done();
  });
  for (const domain of DOMAINS) domain.register(app, deps);
  registerJournalRoutes(app, deps, options.journal);
  registerFaultRoutes(app, deps, listed);
  return app;
}
