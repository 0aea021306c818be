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
import { MEMORY_DB, closeDatabase, openDatabase } from './db/connection.js';
import { createSqliteStorage } from './db/sqlite-storage.js';
import { migrate } from './db/migrate.js';
import { seedFromTemplate } from './db/seed.js';
import type { Db } from './db/schema.js';
import { purgeExpiredRequestIds } from './http/idempotency.js';
import { linkBaseFor, parsePublicUrl } from './http/link-origins.js';
import { ReadCache } from './http/read-cache.js';
import { NOT_CACHED, cachedTokenOwner, loadClockOffsets, type AccountCredentials } from './oauth/service.js';

export { writeSchemaTemplate } from './db/seed.js';

/** Levels at which Fastify logs every request (so no answer may skip it). */
const LOGGED_LEVELS = new Set(['info', 'debug', 'trace']);

export interface ServerOptions {
  dbPath: string;
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
  /** Where the default credentials are remembered; defaults to `<db>.credentials.json`, none for :memory:. */
  credentialsFile?: string | null;
  /**
   * `dbPath` is in payctl's own data folder (serve without --db): a folder or database file found
   * open to other users is made private; elsewhere it is only warned about (db/file-modes.ts).
   */
  ownedDataDirectory?: boolean;
  /** The base URL links use (`--public-url`); the listening address when not given. */
  publicUrl?: string;
  /** A database file to copy when `dbPath` does not exist yet (the build's dist/schema-template.db; db/seed.ts). */
  schemaTemplate?: string;
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
  if (options.schemaTemplate !== undefined) seedFromTemplate(options.dbPath, options.schemaTemplate);
  const opened = openDatabase(options.dbPath, { ownedDirectory: options.ownedDataDirectory === true });
  try {
    const clock = createClock(options.now);
    migrate(opened.sqlite, isoSeconds(clock.systemNow()));
    const hooks: LifecycleHooks = { onAccountCreated: [], onAccountReset: [], onClose: [] };
    let adminKey = '';
    let url = '';
    let publicUrl = '';
    let linkBase: (host: string | undefined) => string = () => publicUrl;
    const logHolder: { log?: FastifyBaseLogger } = {};
    const credentialsFile =
      options.credentialsFile !== undefined ? options.credentialsFile : options.dbPath === MEMORY_DB ? null : `${options.dbPath}.credentials.json`;
    // Without a credentials file the secret lasts this process (a key sealed under it is remade next time).
    const signingKeySecret = rememberedSigningKeySecret(credentialsFile) ?? randomBytes(32);
    const storage = createSqliteStorage(opened.db, { groupCommit: config.groupCommit, sqlite: opened.sqlite });
    const deps: ServerDeps = {
      db: opened.db,
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
      signingKeySecret,
      publicUrl: () => publicUrl,
      linkBase: (host) => linkBase(host),
    };
    // Clocks live in the database (another replica may move one): each pass of the jobs reads them first.
    deps.scheduler.register('clock-offsets', () => loadClockOffsets(deps));
    // A kept answer skips Fastify's request log lines and the rate limiter's bucket.
    if (config.rateLimitPerSecond > 0 || LOGGED_LEVELS.has(options.logLevel ?? 'warn')) deps.readCache.disable();
    // Starts the default secret's scrypt in the thread pool; it runs while the app is built.
    const finishBootstrap = await prepareBootstrap(deps, {
      ...(options.clientId !== undefined ? { clientId: options.clientId } : {}),
      ...(options.clientSecret !== undefined ? { clientSecret: options.clientSecret } : {}),
      ...(options.adminKey !== undefined ? { adminKey: options.adminKey } : {}),
      credentialsFile,
      signingKeySecret,
      warn: (message) => app.log.warn(message),
    });
    const app = buildApp(deps, {
      adminKey: () => adminKey,
      logLevel: options.logLevel ?? 'warn',
      ...(options.logDestination ? { logDestination: options.logDestination } : {}),
    });
    logHolder.log = app.log;
    for (const warning of opened.warnings) app.log.warn(warning);
    deps.scheduler.register('purge-request-ids', () => purgeExpiredRequestIds(deps));

    await loadClockOffsets(deps);
    const booted = await finishBootstrap();
    adminKey = booted.adminKey;
    // Another server starting on the same new database may have written the credentials file first.
    deps.signingKeySecret = booted.signingKeySecret;

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
        await closeDatabase(opened);
      })();
      return closing;
    };
    const routes = routeList.get(app) ?? [];
    return { url, dbPath: options.dbPath, adminKey, defaultCredentials: booted.credentials, deps, db: opened.db, routes, close };
  } catch (error) {
    await closeDatabase(opened);
    throw error;
  }
}
