// The flags of `payctl serve`, described once. The oclif command builds its flags from this table,
// and bin/run.js reads a plain `payctl serve ...` with parseServeArgs without loading oclif at all:
// oclif's runtime and configuration were ~145 ms of a ~450 ms start to first answer. Anything the
// short reader is not sure of (--help, an unknown flag, a bad value, a flag given twice) goes to
// oclif, which then answers exactly as before; so this reader never has to produce an error.

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

interface StringFlag {
  kind: 'string';
  description: string;
  default?: string;
  env?: string;
}
interface IntegerFlag {
  kind: 'integer';
  description: string;
  default?: number;
  min: number;
  max: number;
  env?: string;
}
interface OptionFlag {
  kind: 'option';
  description: string;
  options: readonly string[];
  default: string;
}
interface BooleanFlag {
  kind: 'boolean';
  description: string;
  default?: boolean;
  allowNo?: boolean;
}
type FlagSpec = StringFlag | IntegerFlag | OptionFlag | BooleanFlag;

export const SERVE_FLAGS = {
  host: { kind: 'string', description: 'interface to listen on', default: '127.0.0.1' },
  port: { kind: 'integer', description: 'port to listen on (0 = any free port)', default: 8765, min: 0, max: 65535 },
  db: {
    kind: 'string',
    description: 'SQLite file (":memory:" for a throwaway run) or postgres://USER:PASSWORD@HOST:PORT/DB URL (PostgreSQL 15+, ?sslmode= honoured)',
    env: 'PAYCTL_DB',
  },
  'db-pool-size': { kind: 'integer', description: 'PostgreSQL: connections in the pool (default 10)', min: 1, max: 1000, env: 'PAYCTL_DB_POOL_SIZE' },
  'credentials-file': {
    kind: 'string',
    description: 'where the default credentials and the signing-key secret are kept (default: beside the SQLite file; for PostgreSQL, one file per database in the data folder)',
    env: 'PAYCTL_CREDENTIALS_FILE',
  },
  'signing-key-secret': {
    kind: 'string',
    description: "the webhook signing key's 32-byte secret in base64url, for replicas that share no credentials file",
    env: 'PAYCTL_SIGNING_KEY_SECRET',
  },
  'client-id': { kind: 'string', description: "create or fix the default app's client id", env: 'PAYCTL_SERVE_CLIENT_ID' },
  'client-secret': { kind: 'string', description: "create or fix the default app's client secret", env: 'PAYCTL_SERVE_CLIENT_SECRET' },
  'admin-key': { kind: 'string', description: 'admin key for the control plane (generated if omitted)', env: 'PAYCTL_ADMIN_KEY' },
  'public-url': {
    kind: 'string',
    description: 'base URL for links in answers and events (default: the listening address); other Host headers never write links',
    env: 'PAYCTL_PUBLIC_URL',
  },
  journal: { kind: 'boolean', description: 'record every request and its answer (payctl sandbox requests); --no-journal records none', default: true, allowNo: true },
  'journal-size': { kind: 'integer', description: 'requests the journal keeps per merchant', default: 10_000, min: 1, max: 1_000_000 },
  'log-level': { kind: 'option', description: 'server log level (on stderr)', options: LOG_LEVELS, default: 'warn' },
  'save-profile': { kind: 'boolean', description: 'write the "local" profile for other payctl commands', default: true, allowNo: true },
  json: { kind: 'boolean', description: 'print one JSON line with the base URL and credentials, nothing else on stdout' },
  seed: { kind: 'string', description: 'run this scenario file (YAML or JSON, see payctl sandbox seed) as the default merchant before announcing the server' },
} as const satisfies Record<string, FlagSpec>;

export interface ServeFlags {
  host: string;
  port: number;
  db?: string;
  'db-pool-size'?: number;
  'credentials-file'?: string;
  'signing-key-secret'?: string;
  'client-id'?: string;
  'client-secret'?: string;
  'admin-key'?: string;
  'public-url'?: string;
  journal: boolean;
  'journal-size': number;
  'log-level': LogLevel;
  'save-profile': boolean;
  json?: boolean;
  seed?: string;
}

const INTEGER = /^\d+$/;

/**
 * The flags of `payctl serve <argv>` as oclif would parse them, or null where this reader leaves the
 * decision to oclif. It takes `--name value`, `--name=value`, `--flag` and `--no-flag` (where the
 * table allows it), each flag once, and the table's environment variables when set and not empty.
 * Like oclif, a boolean flag without a default is left out when not given.
 */
export function parseServeArgs(argv: readonly string[], env: NodeJS.ProcessEnv): ServeFlags | null {
  const given = new Map<string, string | boolean | number>();
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!;
    if (!arg.startsWith('--') || arg === '--') return null;
    const equals = arg.indexOf('=');
    let name = equals === -1 ? arg.slice(2) : arg.slice(2, equals);
    let negated = false;
    if (!Object.hasOwn(SERVE_FLAGS, name) && name.startsWith('no-')) {
      name = name.slice(3);
      negated = true;
    }
    if (!Object.hasOwn(SERVE_FLAGS, name) || given.has(name)) return null;
    const spec: FlagSpec = SERVE_FLAGS[name as keyof typeof SERVE_FLAGS];
    if (spec.kind === 'boolean') {
      if (equals !== -1 || (negated && spec.allowNo !== true)) return null;
      given.set(name, !negated);
      continue;
    }
    if (negated) return null;
    const value = equals === -1 ? argv[++index] : arg.slice(equals + 1);
    if (value === undefined || value === '' || value.startsWith('-')) return null;
    if (spec.kind === 'integer') {
      if (!INTEGER.test(value)) return null;
      const number = Number(value);
      if (number < spec.min || number > spec.max) return null;
      given.set(name, number);
    } else if (spec.kind === 'option') {
      if (!spec.options.includes(value)) return null;
      given.set(name, value);
    } else {
      given.set(name, value);
    }
  }
  const flags: Record<string, string | boolean | number> = {};
  for (const [name, spec] of Object.entries(SERVE_FLAGS) as [string, FlagSpec][]) {
    const value = given.get(name);
    if (value !== undefined) {
      flags[name] = value;
    } else if (spec.kind === 'string' && spec.env !== undefined && env[spec.env] !== undefined) {
      const fromEnv = env[spec.env]!;
      if (fromEnv === '') return null;
      flags[name] = fromEnv;
    } else if (spec.kind === 'integer' && spec.env !== undefined && env[spec.env] !== undefined) {
      const fromEnv = env[spec.env]!;
      if (!INTEGER.test(fromEnv)) return null;
      const number = Number(fromEnv);
      if (number < spec.min || number > spec.max) return null;
      flags[name] = number;
    } else if (spec.default !== undefined) {
      flags[name] = spec.default;
    }
  }
  return flags as unknown as ServeFlags;
}

export { databaseForDisplay } from './database-url.js';
