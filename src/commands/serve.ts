import { Command, Flags } from '@oclif/core';
import { runServe } from '../lib/serve.js';
import { SERVE_FLAGS } from '../lib/serve-flags.js';

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
    host: Flags.string(SERVE_FLAGS.host),
    port: Flags.integer(SERVE_FLAGS.port),
    db: Flags.string(SERVE_FLAGS.db),
    'db-pool-size': Flags.integer(SERVE_FLAGS['db-pool-size']),
    'credentials-file': Flags.string(SERVE_FLAGS['credentials-file']),
    'signing-key-secret': Flags.string(SERVE_FLAGS['signing-key-secret']),
    'client-id': Flags.string(SERVE_FLAGS['client-id']),
    'client-secret': Flags.string(SERVE_FLAGS['client-secret']),
    'admin-key': Flags.string(SERVE_FLAGS['admin-key']),
    'public-url': Flags.string(SERVE_FLAGS['public-url']),
    journal: Flags.boolean(SERVE_FLAGS.journal),
    'journal-size': Flags.integer(SERVE_FLAGS['journal-size']),
    'log-level': Flags.option(SERVE_FLAGS['log-level'])(),
    'save-profile': Flags.boolean(SERVE_FLAGS['save-profile']),
    json: Flags.boolean(SERVE_FLAGS.json),
    seed: Flags.string(SERVE_FLAGS.seed),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Serve);
    const code = await runServe(flags, this.config.root);
    if (code !== 0) this.exit(code);
  }
}
