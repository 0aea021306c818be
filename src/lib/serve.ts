// `payctl serve`: start the embedded server, print where it listens, run until SIGINT or SIGTERM.
// Called by the oclif command (src/commands/serve.ts) with the flags oclif parsed.

import { defaultDatabasePath } from './paths.js';
import { loadServer, schemaTemplatePath } from './server-loader.js';
import { databaseForDisplay } from './database-url.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The flags of `payctl serve`, as its command declares them. */
export interface ServeFlags {
  host: string;
  port: number;
  db?: string | undefined;
  'db-pool-size'?: number | undefined;
  'db-prepared-statements'?: boolean | undefined;
  'credentials-file'?: string | undefined;
  'signing-key-secret'?: string | undefined;
  'client-id'?: string | undefined;
  'client-secret'?: string | undefined;
  'admin-key'?: string | undefined;
  'public-url'?: string | undefined;
  journal: boolean;
  'journal-size': number;
  'log-level': LogLevel;
  'save-profile': boolean;
  json?: boolean | undefined;
  seed?: string | undefined;
}

/** Runs the server until a signal stops it; the process's exit code (1: it could not start). */
export async function runServe(flags: ServeFlags, root: string): Promise<number> {
  // Heavy modules (Fastify, better-sqlite3) load only here, never for other commands.
  const loaded = await loadServer(root);
  const { startServer } = loaded.server;
  const dbPath = flags.db ?? defaultDatabasePath();
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer({
      dbPath,
      ownedDataDirectory: flags.db === undefined,
      // A new file starts as a copy of the schema the build made (not there: created as before).
      schemaTemplate: schemaTemplatePath(root),
      host: flags.host,
      port: flags.port,
      logLevel: flags['log-level'],
      journalSize: flags.journal ? flags['journal-size'] : 0,
      ...(flags['client-id'] !== undefined ? { clientId: flags['client-id'] } : {}),
      ...(flags['client-secret'] !== undefined ? { clientSecret: flags['client-secret'] } : {}),
      ...(flags['admin-key'] !== undefined ? { adminKey: flags['admin-key'] } : {}),
      ...(flags['public-url'] !== undefined ? { publicUrl: flags['public-url'] } : {}),
      ...(flags['db-pool-size'] !== undefined ? { dbPoolSize: flags['db-pool-size'] } : {}),
      ...(flags['db-prepared-statements'] === false ? { dbPreparedStatements: false } : {}),
      ...(flags['credentials-file'] !== undefined ? { credentialsFile: flags['credentials-file'] } : {}),
      ...(flags['signing-key-secret'] !== undefined ? { signingKeySecret: flags['signing-key-secret'] } : {}),
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`payctl serve: could not start: ${message}\n`);
    return 1;
  }
  loaded.started();
  const credentials = server.defaultCredentials;
  // What the summary says about the profile: true whichever profile is current.
  let profileLine = '';
  if (flags['save-profile']) {
    // The server is up by now: a profile that cannot be written (a read-only home) is a warning.
    try {
      const { writeLocalProfile } = await import('./config.js');
      const written = writeLocalProfile({ base_url: server.url, client_id: credentials.client_id, client_secret: credentials.client_secret });
      profileLine = written.madeCurrent
        ? '  profile        "local" written and made current: other payctl commands use it'
        : `  profile        "local" written; "${written.current}" stays current (use --profile local, or payctl auth switch local)`;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      process.stderr.write(`payctl serve: warning: the "local" profile was not written (${message}); log in with payctl auth login or set PAYCTL_BASE_URL\n`);
    }
  }
  if (flags.seed !== undefined) {
    // Zod and the YAML parser load only here: a plain `payctl serve` never pays for them.
    const { seedServer } = await import('./scenario-seed.js');
    const code = await seedServer(flags.seed, { url: server.url, credentials, adminKey: server.adminKey }, { json: flags.json === true });
    if (code !== 0) {
      await server.close();
      return code;
    }
  }
  const summary = {
    base_url: server.url,
    client_id: credentials.client_id,
    client_secret: credentials.client_secret,
    payer_id: credentials.payer_id,
    admin_key: server.adminKey,
    db: databaseForDisplay(dbPath),
  };
  if (flags.json) {
    process.stdout.write(`${JSON.stringify(summary)}\n`);
  } else {
    process.stdout.write(
      [
        `payctl serve listening on ${summary.base_url}`,
        `  merchant       ${summary.payer_id}`,
        `  client id      ${summary.client_id}`,
        `  client secret  ${summary.client_secret}`,
        `  admin key      ${summary.admin_key}`,
        `  database       ${summary.db}`,
        profileLine,
        'Press Ctrl-C to stop.',
        '',
      ]
        .filter((line) => line !== '')
        .join('\n') + '\n',
    );
  }
  await new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.stderr.write(`payctl serve: ${signal} received, finishing in-flight requests\n`);
      server.close().then(resolve, (error: unknown) => {
        process.stderr.write(`payctl serve: error while stopping: ${String(error)}\n`);
        resolve();
      });
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  return 0;
}
