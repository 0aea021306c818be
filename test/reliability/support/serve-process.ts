// The BUILT `payctl serve` as a child process on 127.0.0.1: start it on a database file (or a
// postgres:// URL), kill it (SIGKILL for crashes, SIGTERM for a clean stop), start it again on the
// same database.

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { waitFor } from '../../helpers/wait.js';

export const REPO = resolve(import.meta.dirname, '../../..');
const BIN = join(REPO, 'bin', 'run.js');

/** Fixed credentials, so that every start on the same file answers to the same keys. */
export interface ServeCredentials {
  clientId: string;
  clientSecret: string;
  adminKey: string;
}

export const DEFAULT_CREDENTIALS: ServeCredentials = {
  clientId: 'reliability-client',
  clientSecret: 'reliability-secret',
  adminKey: 'reliability-admin-key',
};

export interface ServeOptions {
  /** The --db value: a SQLite file, or a postgres:// URL. */
  dbPath: string;
  credentials?: ServeCredentials;
  /** Milliseconds to wait for the JSON line and the first healthy answer. */
  startTimeoutMs?: number;
  logLevel?: 'fatal' | 'error' | 'warn' | 'info';
  /** Start without --db, with PAYCTL_DATA_DIR the folder of `dbPath` (which must end in /payctl.db): the default data folder. */
  defaultDataDir?: boolean;
  /** Pass no credentials: the server makes them (or reads them back), and `credentials` holds what it printed. */
  generatedCredentials?: boolean;
  /** PAYCTL_CONFIG_DIR (and HOME) for the process, kept when it exits; by default a temporary one, removed. */
  configDir?: string;
  /** Let serve write the "local" profile into the config folder (by default --no-save-profile). */
  saveProfile?: boolean;
  /** More `payctl serve` flags (e.g. --signing-key-secret for a second server on a PostgreSQL database). */
  extraArgs?: readonly string[];
  /** More environment variables for the process. */
  env?: Readonly<Record<string, string>>;
}

export interface ServeProcess {
  child: ChildProcess;
  url: string;
  dbPath: string;
  credentials: ServeCredentials;
  payerId: string;
  /** Milliseconds from spawn to the first healthy answer. */
  startMs: number;
  /** The last 64 KiB the server wrote to stderr (its log), for failure messages. */
  stderr(): string;
  /** Sends the signal and waits (bounded) until the process is gone. */
  kill(signal?: NodeJS.Signals, timeoutMs?: number): Promise<void>;
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** Throws a clear message when the CLI has not been built (`npm run prepare`, which the runner does). */
export function assertBuilt(): void {
  for (const file of ['dist/commands/serve.js', 'dist/server-bundle.cjs', 'oclif.manifest.json']) {
    if (!existsSync(join(REPO, file))) throw new Error(`${file} is missing: run \`npm run prepare\` before the reliability suite`);
  }
}

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `payctl-${prefix}-`));
}

async function waitHealthy(url: string, timeoutMs: number): Promise<void> {
  let last = 'no answer yet';
  await waitFor(
    async () => {
      try {
        const response = await fetch(`${url}/_payctl/health`, { signal: AbortSignal.timeout(2_000) });
        last = `status ${response.status}`;
        return response.ok;
      } catch (error) {
        last = (error as Error).message; // not listening yet
        return false;
      }
    },
    { timeoutMs, intervalMs: 20, what: () => `${url} to answer its health check (last: ${last})` },
  );
}

export async function startServe(options: ServeOptions): Promise<ServeProcess> {
  assertBuilt();
  const credentials = options.credentials ?? DEFAULT_CREDENTIALS;
  const configDir = options.configDir ?? tempDir('serve-config');
  const started = performance.now();
  const args = [
    BIN, 'serve', '--port', '0', ...(options.defaultDataDir ? [] : ['--db', options.dbPath]), '--json', options.saveProfile ? '--save-profile' : '--no-save-profile',
    '--log-level', options.logLevel ?? 'warn',
    ...(options.generatedCredentials ? [] : ['--client-id', credentials.clientId, '--client-secret', credentials.clientSecret, '--admin-key', credentials.adminKey]),
    ...(options.extraArgs ?? []),
  ];
  const child = spawn(process.execPath, args, {
    cwd: REPO,
    env: {
      PATH: process.env.PATH, HOME: configDir, PAYCTL_CONFIG_DIR: configDir, CI: '1', NO_COLOR: '1',
      ...(options.defaultDataDir ? { PAYCTL_DATA_DIR: dirname(options.dbPath) } : {}),
      ...(options.env ?? {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  const exited = new Promise<void>((done) =>
    child.once('exit', () => {
      running.delete(child);
      if (options.configDir === undefined) rmSync(configDir, { recursive: true, force: true });
      done();
    }),
  );
  let log = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    log = (log + chunk).slice(-65_536);
  });
  const timeoutMs = options.startTimeoutMs ?? 30_000;
  try {
    const line = await new Promise<string>((resolveLine, reject) => {
      const timer = setTimeout(() => reject(new Error(`serve printed nothing in ${timeoutMs} ms`)), timeoutMs);
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`serve exited (${code ?? signal}) before starting: ${log}`));
      });
      createInterface({ input: child.stdout! }).once('line', (first) => {
        clearTimeout(timer);
        resolveLine(first);
      });
    });
    const info = JSON.parse(line) as { base_url: string; payer_id: string; client_id: string; client_secret: string; admin_key: string };
    await waitHealthy(info.base_url, timeoutMs);
    child.stdout!.resume();
    return {
      child,
      url: info.base_url,
      dbPath: options.dbPath,
      credentials: options.generatedCredentials ? { clientId: info.client_id, clientSecret: info.client_secret, adminKey: info.admin_key } : credentials,
      payerId: info.payer_id,
      startMs: performance.now() - started,
      stderr: () => log,
      async kill(signal = 'SIGKILL', killTimeoutMs = 15_000) {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill(signal);
        const timer = setTimeout(() => child.kill('SIGKILL'), killTimeoutMs);
        await exited;
        clearTimeout(timer);
      },
    };
  } catch (error) {
    child.kill('SIGKILL');
    await exited;
    throw error;
  }
}
