// startServer: opens the database, migrates, bootstraps, listens. Used by `payctl serve` and tests.

import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { buildApp, routeList, type RouteInfo } from './app.js';
import { prepareBootstrap, rememberedSigningKeySecret } from './bootstrap.js';
import { createClock, isoSeconds } from './core/clock.js';
import { DEFAULT_CONFIG, type LifecycleHooks, type ServerConfig, type ServerDeps } from './core/deps.js';
import { cryptoIds, type IdGenerator } from './core/ids.js';
import { createScheduler } from './core/scheduler.js';
import { DatabaseSetupError, MEMORY_DB, closeDatabase, openDatabase } from './db/connection.js';
import { makePrivateDirectory } from './db/file-modes.js';
import { createSqliteStorage } from './db/sqlite-storage.js';
import { migrate } from './db/migrate.js';
import { seedFromTemplate } from './db/seed.js';
import type { Db } from './db/schema.js';
import { isPostgresUrl, type Storage } from './db/storage.js';
import { storedSigningKeyOpens } from './notifications/signing.js';
import { dirname } from 'node:path';
import { defaultCredentialsFile } from './credentials-path.js';
import { createDomainApis } from './domains.js';
import { purgeExpiredRequestIds } from './http/idempotency.js';
import { linkBaseFor, parsePublicUrl } from './http/link-origins.js';
import { ReadCache } from './http/read-cache.js';
import { loadClockOffsets, type AccountCredentials } from './oauth/service.js';
import { NOT_CACHED, cachedTokenOwner } from './oauth/token-owners.js';
import { keptAnswerEntry } from './journal/hooks.js';
import { RequestJournal } from './journal/recorder.js';

export { writeSchemaTemplate } from './db/seed.js';

/** Levels at which Fastify logs every request (so no answer may skip it). */
const LOGGED_LEVELS = new Set(['info', 'debug', 'trace']);

export interface ServerOptions {
  /** A SQLite file (or ':memory:'), or a postgres:// (postgresql://) URL. */
  dbPath: string;
  /** PostgreSQL: connections in the pool (default 10). */
  dbPoolSize?: number;
  /** PostgreSQL: prepare statements under names, once per connection (default true). */
  dbPreparedStatements?: boolean;
  host?: string;
  port?: number;
  adminKey?: string;
  clientId?: string;
  clientSecret?: string;
  logLevel?: string;
  /** Where log lines go (stderr by default); tests capture them. */
  logDestination?: { write(line: string): void };
  config?: Partial<ServerConfig>;
  /** Real-time source for the clock (tests). */
  now?: () => number;
  ids?: IdGenerator;
  /**
   * Where the default credentials are remembered; defaults to `<db>.credentials.json`, none for
   * :memory:, and for a PostgreSQL URL one file per database in payctl's data folder
   * (credentials-path.ts), which replicas on one host share.
   */
  credentialsFile?: string | null;
  /** The 32 bytes (base64url) the webhook signing key is sealed under, instead of the credentials file's: replicas without a shared file. */
  signingKeySecret?: string;
  /**
   * `dbPath` is in payctl's own data folder (serve without --db): a folder or database file found
   * open to other users is made private; elsewhere it is only warned about (db/file-modes.ts).
   */
  ownedDataDirectory?: boolean;
  /** The base URL links use (`--public-url`); the listening address when not given. */
  publicUrl?: string;
  /** A database file to copy when `dbPath` does not exist yet (the build's dist/schema-template.db; db/seed.ts). */
  schemaTemplate?: string;
  /** Requests kept per merchant in the request journal; 0 or absent: no journal (`payctl serve` keeps 10,000 unless --no-journal). */
  journalSize?: number;
  /** How long the journal waits to write a batch that is not full (default 50 ms; tests). */
  journalFlushMs?: number;
}

export interface RunningServer {
  url: string;
  dbPath: string;
  adminKey: string;
  defaultCredentials: AccountCredentials;
  deps: ServerDeps;
  db: Db;
  /** Every route served, with its auth mode. */
  routes: readonly RouteInfo[];
  close(): Promise<void>;
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const config: ServerConfig = { ...DEFAULT_CONFIG, ...options.config };
  const configuredPublicUrl = options.publicUrl === undefined ? undefined : parsePublicUrl(options.publicUrl);
  const clock = createClock(options.now);
  const postgres = isPostgresUrl(options.dbPath);
  const givenSigningKeySecret = options.signingKeySecret === undefined ? undefined : parseSigningKeySecret(options.signingKeySecret);
  const logHolder: { log?: FastifyBaseLogger } = {};
  let storage: Storage;
  let warnings: string[] = [];
  if (postgres) {
    // Loaded only here: a SQLite server never loads pg.
    const { openPostgresStorage } = await import('./db/postgres-storage.js');
    storage = await openPostgresStorage(options.dbPath, isoSeconds(clock.systemNow()), {
      ...(options.dbPoolSize !== undefined ? { poolSize: options.dbPoolSize } : {}),
      ...(options.dbPreparedStatements === false ? { preparedStatements: false } : {}),
      onIdleError: (error) => logHolder.log?.error({ err: error }, 'idle PostgreSQL connection failed'),
    });
  } else {
    if (options.schemaTemplate !== undefined) seedFromTemplate(options.dbPath, options.schemaTemplate);
    const opened = openDatabase(options.dbPath, { ownedDirectory: options.ownedDataDirectory === true });
    try {
      migrate(opened.sqlite, isoSeconds(clock.systemNow()));
    } catch (error) {
      await closeDatabase(opened);
      throw error;
    }
    warnings = opened.warnings;
    // Its generation (temporary triggers and PRAGMA data_version) keeps process caches correct.
    storage = createSqliteStorage(opened.db, { groupCommit: config.groupCommit, sqlite: opened.sqlite, close: () => closeDatabase(opened) });
  }
  const db = storage.db;
  try {
    const hooks: LifecycleHooks = { onAccountCreated: [], onAccountReset: [], onStart: [], onClose: [] };
    let adminKey = '';
    let url = '';
    let publicUrl = '';
    let linkBase: (host: string | undefined) => string = () => publicUrl;
    const credentialsFile =
      options.credentialsFile !== undefined
        ? options.credentialsFile
        : postgres
          ? defaultCredentialsFile(options.dbPath)
          : options.dbPath === MEMORY_DB
            ? null
            : `${options.dbPath}.credentials.json`;
    // The data folder holding a PostgreSQL database's default credentials file: made private like a SQLite file's.
    if (postgres && credentialsFile !== null && options.credentialsFile === undefined) makePrivateDirectory(dirname(credentialsFile));
    // Without a credentials file the secret lasts this process (a key sealed under it is remade next time).
    const signingKeySecret = givenSigningKeySecret ?? rememberedSigningKeySecret(credentialsFile) ?? randomBytes(32);
    const deps: ServerDeps = {
      db,
      storage,
      clock,
      ids: options.ids ?? cryptoIds,
      scheduler: createScheduler((name, error) => logHolder.log?.error({ err: error, job: name }, 'background job failed')),
      config,
      hooks,
      get log() {
        if (!logHolder.log) throw new Error('logger not ready');
        return logHolder.log;
      },
      readCache: new ReadCache(storage.generation, (token) => {
        const owner = cachedTokenOwner(deps, token);
        return owner === NOT_CACHED ? undefined : owner?.accountId;
      }),
      domains: createDomainApis(),
      signingKeySecret,
      publicUrl: () => publicUrl,
      linkBase: (host) => linkBase(host),
    };
    // Clocks live in the database (another replica may move one): each pass of the jobs reads them first.
    deps.scheduler.register('clock-offsets', () => loadClockOffsets(deps));
    // A kept answer skips Fastify's request log lines and the rate limiter's bucket.
    if (config.rateLimitPerSecond > 0 || LOGGED_LEVELS.has(options.logLevel ?? 'warn')) deps.readCache.disable();
    const journal = options.journalSize !== undefined && options.journalSize > 0 ? new RequestJournal(deps, { size: options.journalSize, ...(options.journalFlushMs !== undefined ? { flushMs: options.journalFlushMs } : {}) }) : undefined;
    if (journal !== undefined) {
      // Kept answers are given before Fastify's hooks: the cache tells the journal of each.
      deps.readCache.onAnswer = (request, accountId, headers, body) => journal.record(keptAnswerEntry(deps, request, accountId, headers, body));
      hooks.onClose.push(() => journal.close());
    }
    // Off where other processes' writes cannot be noticed cheaply (PostgreSQL).
    if (!storage.processCaches) deps.readCache.disable();
    // On SQLite a key nobody can open is replaced (the file's only server lost its secret). Replicas
    // on one PostgreSQL database must sign alike: one that cannot open the key refuses to start,
    // before bootstrap changes anything (a new client secret).
    if (postgres && !(await storedSigningKeyOpens(db, signingKeySecret))) {
      throw new DatabaseSetupError(
        `the webhook signing key stored in this database is sealed under another secret than this server's ` +
          `(${credentialsFile === null ? 'no credentials file' : `credentials file ${credentialsFile}`}). ` +
          'Start every server on this database with the same credentials file (--credentials-file, on storage they share) ' +
          "or the same --signing-key-secret (the first server's file holds it as signing_key_secret).",
      );
    }
    // Starts the default secret's scrypt in the thread pool; it runs while the app is built.
    const finishBootstrap = await prepareBootstrap(deps, {
      ...(options.clientId !== undefined ? { clientId: options.clientId } : {}),
      ...(options.clientSecret !== undefined ? { clientSecret: options.clientSecret } : {}),
      ...(options.adminKey !== undefined ? { adminKey: options.adminKey } : {}),
      credentialsFile,
      signingKeySecret,
      signingKeySecretGiven: givenSigningKeySecret !== undefined,
      warn: (message) => app.log.warn(message),
    });
    const app = buildApp(deps, {
      adminKey: () => adminKey,
      logLevel: options.logLevel ?? 'warn',
      ...(options.logDestination ? { logDestination: options.logDestination } : {}),
      ...(journal !== undefined ? { journal } : {}),
    });
    logHolder.log = app.log;
    for (const warning of warnings) app.log.warn(warning);
    deps.scheduler.register('purge-request-ids', () => purgeExpiredRequestIds(deps));

    await loadClockOffsets(deps);
    const booted = await finishBootstrap();
    adminKey = booted.adminKey;
    // Another server starting on the same new database may have written the credentials file first.
    deps.signingKeySecret = booted.signingKeySecret;
    for (const hook of hooks.onStart) await hook();

    await app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 0 });
    const address = app.server.address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    url = `http://${host}:${address.port}`;
    publicUrl = configuredPublicUrl ?? url;
    linkBase = linkBaseFor(url, publicUrl);
    // Catch up on anything due while the server was down (expiries, scheduled sends, retries).
    await deps.scheduler.runAll();
    deps.scheduler.start(config.jobIntervalMs);

    let closing: Promise<void> | undefined;
    const close = () => {
      closing ??= (async () => {
        await app.close();
        await deps.scheduler.stop();
        for (const hook of hooks.onClose) await hook();
        await storage.close();
      })();
      return closing;
    };
    const routes = routeList.get(app) ?? [];
    return { url, dbPath: options.dbPath, adminKey, defaultCredentials: booted.credentials, deps, db, routes, close };
  } catch (error) {
    await storage.close();
    throw error;
  }
}

/** `--signing-key-secret`: 32 bytes in base64url (as the credentials file keeps it). */
function parseSigningKeySecret(text: string): Buffer {
  if (!/^[A-Za-z0-9_-]{43}$/.test(text)) throw new DatabaseSetupError('the signing key secret must be 32 bytes in base64url (43 characters), as signing_key_secret in a credentials file');
  return Buffer.from(text, 'base64url');
}
