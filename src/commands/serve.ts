import { Command, Flags } from '@oclif/core';
import { defaultDatabasePath } from '../lib/paths.js';
import { loadServer } from '../lib/server-loader.js';

export default class Serve extends Command {
  static override summary = 'Run the embedded payments server (stateful, on SQLite)';

  static override description = `Starts a local server that implements the whole API: OAuth2 tokens, payments, invoicing, disputes, payouts and webhooks, plus the /_payctl control plane. State lives in a SQLite file (WAL, synchronous=FULL), so it survives restarts; use --db :memory: for a throwaway run.

On first start it creates a default merchant account and app, and writes a "local" profile so that payctl commands in another terminal work against it with no login. Ctrl-C stops it gracefully: in-flight requests finish, the database is checkpointed and closed.`;

  static override examples = [
    '<%= config.bin %> serve',
    '<%= config.bin %> serve --port 0 --db :memory: --json',
    '<%= config.bin %> serve --client-id ci-client --client-secret ci-secret --admin-key ci-admin',
  ];

  static override flags = {
    host: Flags.string({ description: 'interface to listen on', default: '127.0.0.1' }),
    port: Flags.integer({ description: 'port to listen on (0 = any free port)', default: 8765, min: 0, max: 65535 }),
    db: Flags.string({ description: 'SQLite file (":memory:" for a throwaway run)', env: 'PAYCTL_DB' }),
    'client-id': Flags.string({ description: "create or fix the default app's client id", env: 'PAYCTL_SERVE_CLIENT_ID' }),
    'client-secret': Flags.string({ description: "create or fix the default app's client secret", env: 'PAYCTL_SERVE_CLIENT_SECRET' }),
    'admin-key': Flags.string({ description: 'admin key for the control plane (generated if omitted)', env: 'PAYCTL_ADMIN_KEY' }),
    'log-level': Flags.option({ options: ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const, default: 'warn' })(),
    'save-profile': Flags.boolean({ description: 'write the "local" profile for other payctl commands', default: true, allowNo: true }),
    json: Flags.boolean({ description: 'print one JSON line with the base URL and credentials, nothing else on stdout' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Serve);
    // Heavy modules (Fastify, better-sqlite3) load only here, never for other commands.
    const loaded = await loadServer(this.config.root);
    const { startServer } = loaded.server;
    const dbPath = flags.db ?? defaultDatabasePath();
    let server: Awaited<ReturnType<typeof startServer>>;
    try {
      server = await startServer({
        dbPath,
        host: flags.host,
        port: flags.port,
        logLevel: flags['log-level'],
        ...(flags['client-id'] !== undefined ? { clientId: flags['client-id'] } : {}),
        ...(flags['client-secret'] !== undefined ? { clientSecret: flags['client-secret'] } : {}),
        ...(flags['admin-key'] !== undefined ? { adminKey: flags['admin-key'] } : {}),
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      process.stderr.write(`payctl serve: could not start: ${message}\n`);
      this.exit(1);
      return;
    }
    loaded.started();
    const credentials = server.defaultCredentials;
    if (flags['save-profile']) {
      const { writeLocalProfile } = await import('../lib/config.js');
      writeLocalProfile({ base_url: server.url, client_id: credentials.client_id, client_secret: credentials.client_secret });
    }
    const summary = {
      base_url: server.url,
      client_id: credentials.client_id,
      client_secret: credentials.client_secret,
      payer_id: credentials.payer_id,
      admin_key: server.adminKey,
      db: dbPath,
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
          flags['save-profile'] ? '  profile        "local" written; other payctl commands use it' : '',
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
  }
}
