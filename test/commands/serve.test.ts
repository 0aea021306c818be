// `payctl serve --json` as a user runs it: a child process, then other payctl commands against it.

import BetterSqlite3 from 'better-sqlite3';
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/wait.js';

const BIN = resolve(__dirname, '../../bin/run.js');

interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

function run(args: string[], env: NodeJS.ProcessEnv): Promise<RunResult> {
  return new Promise((done) => {
    execFile(process.execPath, [BIN, ...args], { env, timeout: 20_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      done({ code, stdout, stderr });
    });
  });
}

function baseEnv(configDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: configDir, PAYCTL_CONFIG_DIR: configDir, CI: '1', NO_COLOR: '1' };
  return env;
}

function waitForExit(child: ChildProcess): Promise<number | null> {
  return new Promise((done) => child.once('exit', (code) => done(code)));
}

describe('payctl serve --json', () => {
  let dir: string;
  let child: ChildProcess;
  let ready: Record<string, string>;
  let firstLine: string;
  const extraStdout: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'payctl-serve-'));
    child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--db', join(dir, 'payctl.db'), '--json'], {
      env: baseEnv(dir),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines = createInterface({ input: child.stdout! });
    firstLine = await new Promise<string>((done, fail) => {
      const timer = setTimeout(() => fail(new Error('serve did not print its JSON line in 20 s')), 20_000);
      lines.once('line', (line) => {
        clearTimeout(timer);
        done(line);
      });
    });
    lines.on('line', (line) => extraStdout.push(line));
    ready = JSON.parse(firstLine) as Record<string, string>;
  }, 30_000);

  afterAll(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints exactly one JSON line with the base URL and credentials', () => {
    expect(Object.keys(ready).sort()).toEqual(['admin_key', 'base_url', 'client_id', 'client_secret', 'db', 'payer_id']);
    expect(ready.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(ready.payer_id).toMatch(/^[2-9A-HJ-NP-Z]{13}$/);
    expect(ready.db).toBe(join(dir, 'payctl.db'));
  });

  it('lets the next payctl command work through the local profile, with no login', async () => {
    const status = await run(['auth', 'status', '--json'], baseEnv(dir));
    expect(status.stderr).toBe('');
    expect(status.code).toBe(0);
    const body = JSON.parse(status.stdout) as { profile: string; base_url: string; merchant: { payer_id: string } };
    expect(body.profile).toBe('local');
    expect(body.base_url).toBe(ready.base_url);
    expect(body.merchant.payer_id).toBe(ready.payer_id);
    expect(status.stdout).not.toContain(ready.client_secret);
  });

  it('answers payctl api GET /_payctl/clock', async () => {
    const clock = await run(['api', 'GET', '/_payctl/clock'], baseEnv(dir));
    expect(clock.code).toBe(0);
    const body = JSON.parse(clock.stdout) as { payer_id: string; offset_seconds: number };
    expect(body.payer_id).toBe(ready.payer_id);
    expect(body.offset_seconds).toBe(0);
  });

  it('exits 3 with the error on stderr and nothing on stdout for an unknown resource', async () => {
    const missing = await run(['api', 'GET', '/v2/payments/captures/NOPE', '--json'], baseEnv(dir));
    expect(missing.code).toBe(3);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toContain('RESOURCE_NOT_FOUND');
  });

  it('stops gracefully on SIGTERM: exit 0, WAL checkpointed, nothing else on stdout', async () => {
    child.kill('SIGTERM');
    const code = await waitForExit(child);
    expect(code).toBe(0);
    expect(extraStdout).toEqual([]);
    const wal = join(dir, 'payctl.db-wal');
    expect(!existsSync(wal) || statSync(wal).size === 0).toBe(true);
  });

  it("started the new database file as a copy of the build's schema template (its migration records say so)", () => {
    const stamps = (file: string) => {
      const sqlite = new BetterSqlite3(file, { readonly: true });
      try {
        return sqlite.prepare('SELECT id, name, applied_at FROM schema_migrations ORDER BY id').all();
      } finally {
        sqlite.close();
      }
    };
    // Read from a copy: opening the WAL-mode template itself would leave -shm and -wal files in dist/.
    const templateCopy = join(dir, 'template-copy.db');
    copyFileSync(resolve(__dirname, '../../dist/schema-template.db'), templateCopy);
    const template = stamps(templateCopy);
    expect(template.length).toBeGreaterThan(0);
    expect(stamps(join(dir, 'payctl.db'))).toEqual(template);
  });
});

/** Sends SIGTERM; the exit code it ends with. */
async function stopWithSigterm(child: ChildProcess): Promise<number | null> {
  child.kill('SIGTERM');
  return waitForExit(child);
}

/** After a test, pass or fail: no server left running, no directory left behind. */
function killAndRemove(child: ChildProcess, dir: string): void {
  if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
}

describe('payctl serve where the profile cannot be written', () => {
  it('keeps serving, warns on stderr, and does not claim the profile in its banner', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'payctl-serve-noprofile-'));
    // A regular file where the config directory should be: writing under it fails, even as root.
    const configDir = join(dir, 'not-a-directory');
    writeFileSync(configDir, '');
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--db', ':memory:'], {
      env: { ...baseEnv(dir), PAYCTL_CONFIG_DIR: configDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    try {
      const banner: string[] = [];
      const lines = createInterface({ input: child.stdout! });
      await new Promise<void>((done, fail) => {
        const timer = setTimeout(() => fail(new Error(`no banner in 20 s; stderr: ${stderr}`)), 20_000);
        lines.on('line', (line) => {
          banner.push(line);
          if (line.startsWith('Press Ctrl-C')) {
            clearTimeout(timer);
            done();
          }
        });
      });
      expect(stderr).toMatch(/warning: the "local" profile was not written/);
      expect(banner.join('\n')).not.toContain('profile');
      const url = /listening on (\S+)/.exec(banner[0] ?? '')?.[1];
      const health = await fetch(`${url}/_payctl/health`);
      expect(health.status).toBe(200);
      expect(await stopWithSigterm(child)).toBe(0);
    } finally {
      killAndRemove(child, dir);
    }
  }, 30_000);
});

describe('payctl serve whose stdout reader has gone', () => {
  /**
   * Starts serve with its stdout pipe closed, on a port known in advance (the banner that would say it
   * is the write that fails), and waits until the banner has met the closed pipe. serve writes its
   * profile just before the banner, in the same synchronous run, so a request sent once the profile
   * names the server is answered only after that write and its EPIPE error (emitted on the next tick;
   * unhandled, it ends the process before the next request is read). The health status is 0 when
   * nothing answered.
   */
  async function serveIntoClosedPipe(dir: string, nodeArgs: readonly string[] = []) {
    const probe = createServer();
    const port = await new Promise<number>((done) => probe.listen(0, '127.0.0.1', () => done((probe.address() as AddressInfo).port)));
    await new Promise((done) => probe.close(done));
    const child = spawn(process.execPath, [...nodeArgs, BIN, 'serve', '--port', String(port), '--db', ':memory:', '--save-profile'], {
      env: baseEnv(dir),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = waitForExit(child);
    child.stdout!.destroy();
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const profile = join(dir, 'config.json');
    await waitFor(() => (existsSync(profile) && readFileSync(profile, 'utf8').includes(`127.0.0.1:${port}`)) || child.exitCode !== null, {
      timeoutMs: 20_000,
      intervalMs: 20,
      what: () => `serve to write its profile (stderr: ${stderr})`,
    });
    const status = await fetch(`http://127.0.0.1:${port}/_payctl/health`).then((answer) => answer.status, () => 0);
    return { child, port, exited, status, stderr: () => stderr };
  }

  it('keeps serving after the banner meets a closed pipe (EPIPE), and stops cleanly', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'payctl-serve-epipe-'));
    const { child, port, status, stderr } = await serveIntoClosedPipe(dir);
    try {
      expect(status, stderr()).toBe(200);
      expect(child.exitCode).toBeNull();
      expect(stderr()).not.toContain('EPIPE');
      expect((await fetch(`http://127.0.0.1:${port}/_payctl/health`)).status).toBe(200);
      expect(await stopWithSigterm(child)).toBe(0);
    } finally {
      killAndRemove(child, dir);
    }
  }, 30_000);

  it('the same wait sees a serve whose EPIPE is not handled die (the control)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'payctl-serve-epipe-control-'));
    // Loaded first: drops every 'error' listener given to process.stdout (oclif's, which ignores EPIPE).
    const preload = join(dir, 'no-stdout-error-handler.cjs');
    writeFileSync(
      preload,
      [
        'for (const name of ["on", "addListener", "once", "prependListener", "prependOnceListener"]) {',
        '  const original = process.stdout[name];',
        '  process.stdout[name] = function (event, listener) { return event === "error" ? this : original.call(this, event, listener); };',
        '}',
      ].join('\n'),
    );
    const { child, status, exited, stderr } = await serveIntoClosedPipe(dir, ['--require', preload]);
    try {
      expect(status).toBe(0);
      expect(await exited).not.toBe(0);
      expect(stderr()).toContain('EPIPE');
    } finally {
      killAndRemove(child, dir);
    }
  }, 30_000);
});
