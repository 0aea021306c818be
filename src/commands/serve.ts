import { Command, Flags } from '@oclif/core';
import { LOG_LEVELS, runServe } from '../lib/serve.js';

export default class Serve extends Command {
  static override summary = 'Run the embedded payments server (stateful, on SQLite or PostgreSQL)';

  static override description = `Starts a local server that implements the whole API: OAuth2 tokens, payments, invoicing, disputes, payouts and webhooks, plus the /_payctl control plane. State lives in a SQLite file (WAL, synchronous=FULL), so it survives restarts; use --db :memory: for a throwaway run.

With --db postgres://USER:PASSWORD@HOST:PORT/DB (PostgreSQL 15 or later) the state lives in that database instead, and any number of payctl serve processes on it serve the same merchants. Replicas on one host share the credentials file payctl keeps per database; replicas on other hosts pass --credentials-file on shared storage, or the same --client-id, --client-secret, --admin-key and --signing-key-secret.

On first start it creates a default merchant account and app, and writes a "local" profile so that payctl commands in another terminal work against it with no login. Ctrl-C stops it gracefully: in-flight requests finish, the database is checkpointed and closed.`;

  static override examples = [
    '<%= config.bin %> serve',
    '<%= config.bin %> serve --port 0 --db :memory: --json',
    '<%= config.bin %> serve --client-id ci-client --client-secret ci-secret --admin-key ci-admin',
    '<%= config.bin %> serve --db postgres://payctl:secret@db.internal:5432/payctl --db-pool-size 20',
    '<%= config.bin %> serve --db :memory: --seed examples/shop.yaml',
  ];

  static override flags = {
    host: Flags.string({ description: 'interface to listen on', default: '127.0.0.1' }),
    port: Flags.integer({ description: 'port to listen on (0 = any free port)', default: 8765, min: 0, max: 65535 }),
    db: Flags.string({
      description: 'SQLite file (":memory:" for a throwaway run) or postgres://USER:PASSWORD@HOST:PORT/DB URL (PostgreSQL 15+, ?sslmode= honoured)',
      env: 'PAYCTL_DB',
    }),
    'db-pool-size': Flags.integer({ description: 'PostgreSQL: connections in the pool (default 10)', min: 1, max: 1000, env: 'PAYCTL_DB_POOL_SIZE' }),
    'db-prepared-statements': Flags.boolean({
      description: 'PostgreSQL: prepare each statement once per connection; --no-db-prepared-statements behind a pooler in transaction mode that cannot keep them (PgBouncer before 1.21)',
      default: true,
      allowNo: true,
      env: 'PAYCTL_DB_PREPARED_STATEMENTS',
    }),
    'credentials-file': Flags.string({
      description: 'where the default credentials and the signing-key secret are kept (default: beside the SQLite file; for PostgreSQL, one file per database in the data folder)',
      env: 'PAYCTL_CREDENTIALS_FILE',
    }),
    'signing-key-secret': Flags.string({
      description: "the webhook signing key's 32-byte secret in base64url, for replicas that share no credentials file",
      env: 'PAYCTL_SIGNING_KEY_SECRET',
    }),
    'client-id': Flags.string({ description: "create or fix the default app's client id", env: 'PAYCTL_SERVE_CLIENT_ID' }),
    'client-secret': Flags.string({ description: "create or fix the default app's client secret", env: 'PAYCTL_SERVE_CLIENT_SECRET' }),
    'admin-key': Flags.string({ description: 'admin key for the control plane (generated if omitted)', env: 'PAYCTL_ADMIN_KEY' }),
    'public-url': Flags.string({
      description: 'base URL for links in answers and events (default: the listening address); other Host headers never write links',
      env: 'PAYCTL_PUBLIC_URL',
    }),
    journal: Flags.boolean({ description: 'record every request and its answer (payctl sandbox requests); --no-journal records none', default: true, allowNo: true }),
    'journal-size': Flags.integer({ description: 'requests the journal keeps per merchant', default: 10_000, min: 1, max: 1_000_000 }),
    'log-level': Flags.option({ description: 'server log level (on stderr)', options: LOG_LEVELS, default: 'warn' as const })(),
    'save-profile': Flags.boolean({ description: 'write the "local" profile for other payctl commands', default: true, allowNo: true }),
    json: Flags.boolean({ description: 'print one JSON line with the base URL and credentials, nothing else on stdout' }),
    seed: Flags.string({ description: 'run this scenario file (YAML or JSON, see payctl sandbox seed) as the default merchant before announcing the server' }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Serve);
    const code = await runServe(flags, this.config.root);
    if (code !== 0) this.exit(code);
  }
}
