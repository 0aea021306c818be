// `payctl serve`'s short flag reader (bin/run.js uses it before oclif loads) must read every command
// line it accepts exactly as oclif's parser reads it against the command's flags, and leave the rest
// to oclif.

import { Parser } from '@oclif/core';
import { afterEach, describe, expect, it } from 'vitest';
import Serve from '../../src/commands/serve.js';
import { parseServeArgs } from '../../src/lib/serve-flags.js';

const ENV_NAMES = [
  'PAYCTL_DB',
  'PAYCTL_SERVE_CLIENT_ID',
  'PAYCTL_SERVE_CLIENT_SECRET',
  'PAYCTL_ADMIN_KEY',
  'PAYCTL_DB_POOL_SIZE',
  'PAYCTL_CREDENTIALS_FILE',
  'PAYCTL_SIGNING_KEY_SECRET',
];
const saved = Object.fromEntries(ENV_NAMES.map((name) => [name, process.env[name]]));

function setEnv(env: Record<string, string>): void {
  for (const name of ENV_NAMES) delete process.env[name];
  Object.assign(process.env, env);
}

afterEach(() => {
  for (const name of ENV_NAMES) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

async function oclifFlags(argv: string[]): Promise<Record<string, unknown>> {
  const parsed = await Parser.parse(argv, { flags: Serve.flags, args: Serve.args, strict: true });
  return parsed.flags;
}

describe('parseServeArgs', () => {
  const accepted: [string[], Record<string, string>][] = [
    [[], {}],
    [['--port', '0', '--db', ':memory:', '--json', '--no-save-profile'], {}],
    [['--port=0', '--host=0.0.0.0', '--log-level', 'debug', '--save-profile'], {}],
    [['--client-id', 'ci-client', '--client-secret', 'ci secret with spaces', '--admin-key=k=v'], {}],
    [['--port', '65535'], {}],
    [['--port', '007', '--log-level=trace'], {}],
    [[], { PAYCTL_DB: '/srv/payctl.db', PAYCTL_SERVE_CLIENT_ID: 'from-env', PAYCTL_ADMIN_KEY: 'admin' }],
    [['--db', '/flag/wins.db', '--client-id', 'flag-wins'], { PAYCTL_DB: '/srv/payctl.db', PAYCTL_SERVE_CLIENT_ID: 'from-env' }],
    [['--client-secret=s3cr3t'], { PAYCTL_SERVE_CLIENT_SECRET: 'from-env' }],
    [['--db', 'postgres://payctl:p%40ss@db.internal:5432/payctl?sslmode=require', '--db-pool-size', '20'], {}],
    [['--credentials-file', '/shared/payctl.json', '--signing-key-secret=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'], {}],
    [[], { PAYCTL_DB: 'postgresql://db/payctl', PAYCTL_DB_POOL_SIZE: '5', PAYCTL_CREDENTIALS_FILE: '/shared/c.json' }],
    [['--db-pool-size', '7'], { PAYCTL_DB_POOL_SIZE: '5' }],
  ];

  it.each(accepted)('reads %j (env %j) as oclif does', async (argv, env) => {
    setEnv(env);
    const fast = parseServeArgs(argv, process.env);
    expect(fast).not.toBeNull();
    expect(fast).toEqual(await oclifFlags(argv));
  });

  it('fills the defaults oclif fills, and leaves out an absent boolean without a default', () => {
    setEnv({});
    expect(parseServeArgs([], process.env)).toEqual({ host: '127.0.0.1', port: 8765, journal: true, 'journal-size': 10_000, 'log-level': 'warn', 'save-profile': true });
  });

  it('reads the journal switches', () => {
    setEnv({});
    expect(parseServeArgs(['--no-journal', '--journal-size', '50'], process.env)).toMatchObject({ journal: false, 'journal-size': 50 });
    expect(parseServeArgs(['--journal-size', '0'], process.env)).toBeNull();
  });

  const handedToOclif: [string, string[], Record<string, string>][] = [
    ['help', ['--help'], {}],
    ['a short flag', ['-h'], {}],
    ['an argument', ['extra'], {}],
    ['the end of flags', ['--', '--json'], {}],
    ['an unknown flag', ['--bogus'], {}],
    ['a value that is not an integer', ['--port', 'abc'], {}],
    ['an integer out of range', ['--port', '70000'], {}],
    ['a signed integer', ['--port', '+80'], {}],
    ['an option not offered', ['--log-level', 'loud'], {}],
    ['a missing value', ['--db'], {}],
    ['an empty value', ['--db='], {}],
    ['a value that looks like a flag', ['--db', '--json'], {}],
    ['a boolean with a value', ['--json=true'], {}],
    ['a negated boolean that has no --no- form', ['--no-json'], {}],
    ['a negated string flag', ['--no-db'], {}],
    ['a flag given twice', ['--port', '1', '--port', '2'], {}],
    ['an empty environment variable', [], { PAYCTL_DB: '' }],
    ['a pool size of 0', ['--db-pool-size', '0'], {}],
    ['a pool size from the environment that is not an integer', [], { PAYCTL_DB_POOL_SIZE: 'ten' }],
    ['a pool size from the environment out of range', [], { PAYCTL_DB_POOL_SIZE: '0' }],
  ];

  it.each(handedToOclif)('leaves %s to oclif', (_what, argv, env) => {
    setEnv(env);
    expect(parseServeArgs(argv, process.env)).toBeNull();
  });
});
