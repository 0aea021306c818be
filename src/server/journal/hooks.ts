// Notes every request for the journal once its answer is sent (onResponse): nothing is written
// while the request runs, and the request's own transaction is untouched.

import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServerDeps } from '../core/deps.js';
import { REQUEST_ID_HEADERS } from '../http/headers.js';
import { NOT_CACHED, cachedTokenOwner } from '../oauth/service.js';
import { bearerText } from '../http/auth.js';
import type { PendingEntry, RequestJournal } from './recorder.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The answer's body as sent (onSend), for the journal; undefined when it was no text. */
    journalAnswer: string | Buffer | null;
  }
}

const JOURNALED = Symbol('payctl.journaled');
type Marked = FastifyRequest & { [JOURNALED]?: true };

/** Reading the journal, and the health probe, are not journaled themselves. */
function isJournaled(path: string): boolean {
  return !(path === '/_payctl/health' || path === '/_payctl/requests' || path.startsWith('/_payctl/requests/'));
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}

function basicClientId(header: string | undefined): string | undefined {
  const match = header === undefined ? null : /^Basic ([A-Za-z0-9+/=]+)$/.exec(header.trim());
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon > 0 ? decoded.slice(0, colon) : undefined;
}

/** The merchant a request acted for: its caller, else (a route without authentication, a 404) its token's if known. */
function accountOf(deps: ServerDeps, request: FastifyRequest): string {
  if (request.caller !== null) return request.caller.accountId;
  if (request.isAdmin) return '';
  const token = bearerText(request.headers);
  if (token === undefined) return '';
  const owner = cachedTokenOwner(deps, token);
  return owner === NOT_CACHED || owner === undefined ? '' : owner.accountId;
}

function bodyInfo(request: FastifyRequest): PendingEntry['requestBodyInfo'] {
  const type = request.headers['content-type'];
  if (type === undefined || /json|x-www-form-urlencoded/i.test(type)) return undefined;
  const length = Number(request.headers['content-length']);
  return { content_type: type, bytes: Number.isFinite(length) ? length : null };
}

function entryOf(deps: ServerDeps, request: FastifyRequest, reply: FastifyReply, status: number | null): PendingEntry {
  const accountId = accountOf(deps, request);
  const durationMs = reply.elapsedTime;
  const answer = request.journalAnswer;
  const requestBodyInfo = bodyInfo(request);
  const clientId = accountId === '' ? basicClientId(headerValue(request.headers.authorization)) ?? formClientId(request.body) : undefined;
  const responseHeaders = (status === null ? {} : reply.getHeaders()) as OutgoingHttpHeaders;
  const entry: PendingEntry = {
    accountId,
    startedMs: deps.clock.systemNow().getTime() - durationMs,
    accountOffsetMs: accountId === '' ? 0 : deps.clock.offsetMs(accountId),
    durationUs: durationMs * 1000,
    method: request.method,
    url: request.url,
    requestHeaders: request.headers,
    requestBody: requestBodyInfo === undefined ? request.body : undefined,
    status,
    responseHeaders,
    responseText: typeof answer === 'string' ? answer : undefined,
    requestId: headerValue(request.headers[REQUEST_ID_HEADERS[0]] ?? request.headers[REQUEST_ID_HEADERS[1]]) ?? null,
    faultId: request.faultId,
  };
  if (clientId !== undefined) entry.clientId = clientId;
  if (requestBodyInfo !== undefined) entry.requestBodyInfo = requestBodyInfo;
  if (Buffer.isBuffer(answer)) {
    entry.responseBodyInfo = { content_type: String(responseHeaders['content-type'] ?? 'application/octet-stream'), bytes: answer.length };
  } else if (answer === null && status !== null && status !== 204 && responseHeaders['content-type'] !== undefined) {
    const length = Number(responseHeaders['content-length']);
    entry.responseBodyInfo = { content_type: String(responseHeaders['content-type']), bytes: Number.isFinite(length) ? length : null };
  }
  return entry;
}

function formClientId(body: unknown): string | undefined {
  const id = body !== null && typeof body === 'object' ? (body as { client_id?: unknown }).client_id : undefined;
  return typeof id === 'string' ? id : undefined;
}

/** An answer the read cache gave before Fastify saw the request (http/read-cache.ts): a GET with a bearer token. */
export function keptAnswerEntry(deps: ServerDeps, request: IncomingMessage, accountId: string, headers: OutgoingHttpHeaders, body: string): PendingEntry {
  return {
    accountId,
    startedMs: deps.clock.systemNow().getTime(),
    accountOffsetMs: deps.clock.offsetMs(accountId),
    durationUs: 0,
    method: 'GET',
    url: request.url ?? '/',
    requestHeaders: request.headers,
    requestBody: undefined,
    status: 200,
    responseHeaders: headers,
    responseText: body,
    requestId: null,
    faultId: null,
  };
}

/** Registers the hooks; returns what a dropped connection calls (it gets no onResponse). */
export function installJournal(app: FastifyInstance, deps: ServerDeps, journal: RequestJournal): (request: FastifyRequest, reply: FastifyReply) => void {
  app.decorateRequest('journalAnswer', null);
  app.addHook('onSend', (request, _reply, payload, done) => {
    if (typeof payload === 'string' || Buffer.isBuffer(payload)) request.journalAnswer = payload;
    done(null, payload);
  });
  app.addHook('onResponse', (request, reply, done) => {
    const path = request.routeOptions.url ?? request.url.split('?', 1)[0] ?? '/';
    if ((request as Marked)[JOURNALED] !== true && isJournaled(path)) journal.record(entryOf(deps, request, reply, reply.statusCode));
    done();
  });
  return (request, reply) => {
    (request as Marked)[JOURNALED] = true;
    journal.record(entryOf(deps, request, reply, null));
  };
}
