import { Command, Flags } from '@oclif/core';
import { runServe } from '../lib/serve.js';
import { SERVE_FLAGS } from '../lib/serve-flags.js';

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
    host: Flags.string(SERVE_FLAGS.host),
    port: Flags.integer(SERVE_FLAGS.port),
    db: Flags.string(SERVE_FLAGS.db),
    'client-id': Flags.string(SERVE_FLAGS['client-id']),
    'client-secret': Flags.string(SERVE_FLAGS['client-secret']),
    'admin-key': Flags.string(SERVE_FLAGS['admin-key']),
    'public-url': Flags.string(SERVE_FLAGS['public-url']),
    'log-level': Flags.option(SERVE_FLAGS['log-level'])(),
    'save-profile': Flags.boolean(SERVE_FLAGS['save-profile']),
    json: Flags.boolean(SERVE_FLAGS.json),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Serve);
    const code = await runServe(flags, this.config.root);
    if (code !== 0) this.exit(code);
  }
}
