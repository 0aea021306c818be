// Heavy server modules load only for `serve`: help and remote commands must not pay for them.

import { execFile, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const BIN = resolve(__dirname, '../../bin/run.js');
const HOOK = resolve(__dirname, '../helpers/report-heavy-loads.mjs');
// The server is bundled (fastify, kysely and better-sqlite3's JavaScript inside one file) when built;
// better-sqlite3's native addon is a file of its own.
const SERVER_MODULES = ['fastify', 'better-sqlite3', 'kysely', 'payctl-server'];

function runTraced(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stderr: string; stdout: string }> {
  const configDir = mkdtempSync(join(tmpdir(), 'payctl-startup-'));
  return new Promise((done) => {
    execFile(
      process.execPath,
      ['--import', HOOK, BIN, ...args],
      { env: { PATH: process.env.PATH, PAYCTL_CONFIG_DIR: configDir, CI: '1', PAYCTL_TIMEOUT_MS: '2000', ...env }, timeout: 30_000 },
      (error, stdout, stderr) => done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

const loaded = (stderr: string) => SERVER_MODULES.filter((name) => stderr.includes(`HEAVY-MODULE-LOADED ${name}\n`));

describe('startup cost', () => {
  it('the tracer sees the server modules when serve runs (so the other checks can fail)', async () => {
    const configDir = mkdtempSync(join(tmpdir(), 'payctl-startup-'));
    const child = spawn(process.execPath, ['--import', HOOK, BIN, 'serve', '--db', ':memory:', '--port', '0', '--no-save-profile', '--json'], {
      env: { PATH: process.env.PATH, PAYCTL_CONFIG_DIR: configDir, CI: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const line = await new Promise<string>((done) => createInterface({ input: child.stdout }).once('line', done));
    expect(JSON.parse(line).base_url).toMatch(/^http:/);
    child.kill('SIGTERM');
    await new Promise((done) => child.once('exit', done));
    expect(loaded(stderr)).toEqual(expect.arrayContaining(['better-sqlite3', 'payctl-server']));
  });

  it('serve --help and a bad flag value answer without loading the server', async () => {
    const help = await runTraced(['serve', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--[no-]save-profile');
    expect(loaded(help.stderr)).toEqual([]);
    const bad = await runTraced(['serve', '--log-level', 'loud', '--db', ':memory:', '--port', '0']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/Expected --log-level=loud to be one of/);
    expect(loaded(bad.stderr)).toEqual([]);
  });

  it('payctl --help loads no server module', async () => {
    const result = await runTraced(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('serve');
    expect(result.stdout).toMatch(/EXIT CODES[\s\S]*\b5 +business rule refused[\s\S]*\b130 +interrupted/);
    expect(loaded(result.stderr)).toEqual([]);
  });

  it('a remote command loads no server module', async () => {
    const result = await runTraced(['auth', 'token'], {
      PAYCTL_BASE_URL: 'http://127.0.0.1:9',
      PAYCTL_CLIENT_ID: 'id',
      PAYCTL_CLIENT_SECRET: 'secret',
    });
    expect(result.code).toBe(6);
    expect(loaded(result.stderr)).toEqual([]);
    // The tracer does see what the CLI loads: its dependencies are bundled, the command's own file is the witness.
    expect(result.stderr).toContain('HEAVY-MODULE-LOADED command auth/token');
  });
});
