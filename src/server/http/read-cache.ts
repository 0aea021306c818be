// Answers of the payment resource GETs, kept while the database has not changed (SQLite; off
// where the storage has no generation, so a GET on one replica always reads another's writes).

import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest, onRequestHookHandler, onSendHookHandler } from 'fastify';
import { bearerText } from './auth.js';
import { AUTH_ASSERTION_HEADERS, MOCK_RESPONSE_HEADERS, REQUEST_ID_HEADERS } from './headers.js';

/**
 * Whether a kept answer may still be given, beyond the database not having changed: for an answer
 * that time alone changes (an open authorization, until its expiration time on the account's clock).
 */
export type Freshness = () => boolean;

interface Entry {
  generation: string;
  fresh: Freshness | undefined;
  headers: OutgoingHttpHeaders;
  body: string;
  bytes: number;
}

/** Headers that change what a route answers (or refuse the request): a request with any is never served from here. */
const SPECIAL_HEADERS = [...REQUEST_ID_HEADERS, ...AUTH_ASSERTION_HEADERS, ...MOCK_RESPONSE_HEADERS];

const MAX_ENTRIES = 4_096;
const MAX_BYTES = 8 * 1024 * 1024;
/** A larger answer is not kept (a payment resource is ~1-3 KB). */
const MAX_ANSWER_BYTES = 128 * 1024;

/** The generation a request saw before its route read anything (set by the route's onRequest hook). */
const SEEN_GENERATION = Symbol('payctl.readCache.generation');
/** The route's freshness test of its answer (keepWhile). */
const FRESHNESS = Symbol('payctl.readCache.freshness');
type WithGeneration = FastifyRequest & { [SEEN_GENERATION]?: string; [FRESHNESS]?: Freshness };

/**
 * A request a kept answer may serve: a bearer token, a Host header (links are built on it), and
 * none of the headers that change or refuse an answer. The key is the caller's account, the host
 * and the request target exactly as sent.
 */
function plainKey(request: IncomingMessage, accountId: string): string | undefined {
  const { headers } = request;
  const host = headers.host;
  if (typeof host !== 'string' || host === '') return undefined;
  for (const name of SPECIAL_HEADERS) if (headers[name] !== undefined) return undefined;
  return `${accountId}\n${host}\n${request.url ?? ''}`;
}

/**
 * The 200 answers of GET routes whose answer depends only on the database, the caller's account,
 * the Host header, the request target and (given by the route, keepWhile) the account's clock (the
 * payment resources), kept and given again without Fastify, authentication's hooks or a query while
 * the database has not changed.
 *
 * An answer is kept with the database generation (db/generation.ts) seen before its route read
 * anything, and given again only while the generation is the same: any row changed through this
 * connection, committed or not, and any other connection's commit makes it stale. So a kept answer
 * is always one a read made now would give. Before each use the caller's token is checked as the
 * authenticator checks it (in the token cache, unexpired in real time), and the answer's own
 * freshness test runs, if its route gave one. Anything else (no kept answer, a token not in the
 * token cache, another header that matters) goes through Fastify as usual.
 *
 * Off when request logging is on (its lines would be missing), when rate limiting is on (a hit
 * would not take from the bucket), and once the server is closing (Fastify then answers 503).
 */
export class ReadCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  private enabled = true;
  /** Answers given from here; kept answers found stale (then dropped) or not fresh; answers kept (for tests and diagnosis). */
  readonly stats = { hits: 0, misses: 0, stored: 0 };
  /** Told of each answer given from here, after it is sent (the request journal records them). */
  onAnswer: ((request: IncomingMessage, accountId: string, headers: OutgoingHttpHeaders, body: string) => void) | undefined;

  private readonly generation: () => string;

  /**
   * @param generation the storage's generation (db/storage.ts); undefined (no cheap marker of
   *   other processes' writes, as on PostgreSQL) leaves the cache off
   * @param accountOfToken the account of a live token the token cache knows, without a query;
   *   undefined for any other token (the request then goes through the authenticator)
   */
  constructor(
    generation: (() => string) | undefined,
    private readonly accountOfToken: (token: string) => string | undefined,
  ) {
    this.generation = generation === undefined ? () => '' : () => generation();
    if (generation === undefined) this.enabled = false;
  }

  /** Stops giving and keeping answers (the server is closing, or the cache is not allowed). */
  disable(): void {
    this.enabled = false;
    this.entries.clear();
    this.bytes = 0;
  }

  /**
   * Answers the raw request from a kept answer if one may be given; false leaves the request to
   * Fastify. Called for every request before routing, so a request that cannot be served costs a
   * few property reads.
   */
  answer(request: IncomingMessage, response: ServerResponse): boolean {
    if (this.entries.size === 0 || request.method !== 'GET') return false;
    // The token cache holds only tokens the authenticator has accepted: the text needs no check of its own.
    const token = bearerText(request.headers);
    if (token === undefined) return false;
    const accountId = this.accountOfToken(token);
    if (accountId === undefined) return false;
    const key = plainKey(request, accountId);
    if (key === undefined) return false;
    const entry = this.entries.get(key);
    if (entry === undefined) return false;
    if (this.currentGeneration() !== entry.generation) {
      this.drop(key, entry);
      this.stats.misses += 1;
      return false;
    }
    if (entry.fresh !== undefined && !entry.fresh()) {
      // Time moved past what it showed: it will not be fresh again.
      this.drop(key, entry);
      this.stats.misses += 1;
      return false;
    }
    this.stats.hits += 1;
    response.writeHead(200, entry.headers);
    response.end(entry.body);
    this.onAnswer?.(request, accountId, entry.headers, entry.body);
    return true;
  }

  /**
   * The route options that keep a GET route's 200 answers: an onRequest hook that notes the
   * generation before the route reads anything, and an onSend hook that keeps the answer.
   */
  route(): { onRequest: onRequestHookHandler; onSend: onSendHookHandler } {
    const onRequest: onRequestHookHandler = (request, _reply, done) => {
      if (this.enabled) {
        const generation = this.currentGeneration();
        if (generation !== undefined) (request as WithGeneration)[SEEN_GENERATION] = generation;
      }
      done();
    };
    const onSend: onSendHookHandler = (request, reply, payload, done) => {
      this.keep(request as WithGeneration, reply, payload);
      done(null, payload);
    };
    return { onRequest, onSend };
  }

  /** Called by a route on a request whose answer time alone may change: kept, it is given only while `fresh` holds. */
  keepWhile(request: FastifyRequest, fresh: Freshness): void {
    (request as WithGeneration)[FRESHNESS] = fresh;
  }

  private keep(request: WithGeneration, reply: FastifyReply, payload: unknown): void {
    const generation = request[SEEN_GENERATION];
    const fresh = request[FRESHNESS];
    const caller = request.caller;
    if (!this.enabled || generation === undefined || reply.statusCode !== 200 || typeof payload !== 'string') return;
    if (caller === null || caller.viaAssertion || bearerText(request.headers) === undefined) return;
    const key = plainKey(request.raw, caller.accountId);
    if (key === undefined) return;
    const bytes = Buffer.byteLength(payload);
    if (bytes > MAX_ANSWER_BYTES) return;
    const headers = { ...reply.getHeaders(), 'content-length': bytes } as OutgoingHttpHeaders;
    const previous = this.entries.get(key);
    if (previous) this.drop(key, previous);
    this.entries.set(key, { generation, fresh, headers, body: payload, bytes });
    this.bytes += bytes;
    this.stats.stored += 1;
    // Oldest first out (a Map iterates in insertion order).
    for (const [oldKey, oldEntry] of this.entries) {
      if (this.entries.size <= MAX_ENTRIES && this.bytes <= MAX_BYTES) break;
      this.drop(oldKey, oldEntry);
    }
  }

  private drop(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }

  private currentGeneration(): string | undefined {
    try {
      return this.generation();
    } catch {
      // The database is closing: nothing can be vouched for.
      return undefined;
    }
  }
}
