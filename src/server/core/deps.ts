// What every domain's routes and services are given: no globals, everything passed in.

import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyRequest, onRequestHookHandler, onSendHookHandler } from 'fastify';
import type { Db, Queryable } from '../db/schema.js';
import type { Storage } from '../db/storage.js';
import type { DomainApis } from '../domains.js';
import type { Clock } from './clock.js';
import type { IdGenerator } from './ids.js';
import type { Scheduler } from './scheduler.js';

export interface ServerConfig {
  /** Access token lifetime in seconds. */
  tokenLifetimeSeconds: number;
  /** Captures may total at most this percentage of the authorized amount. */
  overCapturePercent: number;
  /** Captures one authorization accepts (MAX_CAPTURE_COUNT_EXCEEDED beyond). */
  maxCapturesPerAuthorization: number;
  /** Requests per second per app; 0 turns rate limiting off. */
  rateLimitPerSecond: number;
  rateLimitBurst: number;
  /** JSON body limit in bytes. */
  bodyLimit: number;
  /** How often background jobs run, in milliseconds of real time. */
  jobIntervalMs: number;
  /** Commit concurrent mutating requests together (one fsync per batch). */
  groupCommit: boolean;
  /** Directory for files the server keeps outside SQLite (dispute evidence); null = in the database. */
  filesDir: string | null;
  /** A client must send its request headers within this time, and the whole request within requestTimeoutMs. */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
}

export const DEFAULT_CONFIG: ServerConfig = {
  tokenLifetimeSeconds: 32_400,
  overCapturePercent: 115,
  maxCapturesPerAuthorization: 1_000_000,
  rateLimitPerSecond: 0,
  rateLimitBurst: 0,
  bodyLimit: 1024 * 1024,
  jobIntervalMs: 1000,
  groupCommit: true,
  filesDir: null,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
};

export type AccountHook = (db: Queryable, accountId: string) => Promise<void>;

export interface LifecycleHooks {
  /** Called in the transaction that creates a merchant account (seed its system data). */
  onAccountCreated: AccountHook[];
  /** Called in the transaction that resets an account: delete the domain's rows for it. */
  onAccountReset: AccountHook[];
  /**
   * Called once when the server starts, after bootstrap and before it listens: bring existing rows
   * up to what the domain expects (the first-use data of accounts made before the domain had it),
   * so that no request has to, and a GET never writes.
   */
  onStart: Array<() => Promise<void>>;
  /** Called when the server stops, after it stops accepting requests. */
  onClose: Array<() => Promise<void>>;
}

/**
 * Kept answers of GETs, as the app and the routes use them (http/read-cache.ts implements it; core
 * names only the shape, so that it depends on nothing above it).
 */
export interface KeptAnswers {
  /** Answers the request from a kept answer; false when none may be given. */
  answer(request: IncomingMessage, response: ServerResponse): boolean;
  /** Answers given from the cache, missed, and kept (for tests and benchmarks). */
  readonly stats: { hits: number; misses: number; stored: number };
  /** Stops giving kept answers (for good). */
  disable(): void;
  /** Told of each answer given from here, after it is sent (the request journal records them). */
  onAnswer: ((request: IncomingMessage, accountId: string, headers: OutgoingHttpHeaders, body: string) => void) | undefined;
  /** Route hooks that keep a GET route's 200 answers while no write happened. */
  route(): { onRequest: onRequestHookHandler; onSend: onSendHookHandler };
  /** Called by a route on a request whose answer time alone may change: kept, it is given only while `fresh` holds. */
  keepWhile(request: FastifyRequest, fresh: () => boolean): void;
}

export interface ServerDeps {
  /** Root handle for autocommit reads; every transaction goes through `storage.transaction`. */
  db: Db;
  /** The one way to open a transaction (db/storage.ts). */
  storage: Storage;
  clock: Clock;
  ids: IdGenerator;
  scheduler: Scheduler;
  config: ServerConfig;
  hooks: LifecycleHooks;
  log: FastifyBaseLogger;
  /** Kept answers of the payment resource GETs (http/read-cache.ts). */
  readCache: KeptAnswers;
  /**
   * Each domain's service interface (its api.ts), wired once in domains.ts. A domain calls another
   * only through this (`ctx.deps.domains.payments.findCapture(ctx, id)`), never through its modules.
   */
  domains: DomainApis;
  /** The 32 bytes the webhook signing key is sealed under in the database; kept in the credentials file. */
  signingKeySecret: Buffer;
  /** The server's public base URL (--public-url, else the listening address) once listening. */
  publicUrl(): string;
  /**
   * The base URL for links in an answer to a request with this Host header: the Host as given when
   * it is on the allow-list (the listening address, localhost on its port, the public URL's host),
   * otherwise the public URL. A Host header never writes links to a host nobody configured.
   */
  linkBase(host: string | undefined): string;
}

/**
 * What a request may need of its merchant's account row, read with the token in the same query
 * (oauth's token lookup), so most requests read no account row of their own. A snapshot as of the
 * token lookup, before the request's transaction: an unlocked read inside it (READ COMMITTED: a new
 * snapshot per statement) would be a little newer but no more correct, since a change concurrent
 * with the request may land on either side of either read. Work that must exclude a concurrent
 * change locks the account row instead. Undefined where the acting account is not the token's.
 */
export interface AccountFacts {
  email: string;
  kycStatus: string;
  /** The account has fault rules: false lets the fault hook skip reading them. */
  hasFaultRules: boolean;
}

/** What a service function needs to act for one merchant within one request or job. */
export interface ServiceContext {
  db: Queryable;
  deps: ServerDeps;
  accountId: string;
  now: Date;
  baseUrl: string;
  /** The merchant's account as read with the caller's token; undefined in jobs and assertion calls (read it). */
  account?: AccountFacts | undefined;
}
