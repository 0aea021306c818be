// Runs the built `bin/run.js` as a user would: a child process with its own env and config dir.

import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect } from 'vitest';
import type { ServerOptions } from '../../src/server/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

export const REPO = fileURLToPath(new URL('../..', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  elapsedMs: number;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  /** Kill the process after this long (it then reports code null). */
  timeoutMs?: number;
}

/** The PAYCTL_* variables that point payctl at a test server as its default merchant. */
export function serverEnv(server: TestServer, configDir: string): Record<string, string> {
  const creds = server.server.defaultCredentials;
  return { PAYCTL_CONFIG_DIR: configDir, PAYCTL_BASE_URL: server.url, PAYCTL_CLIENT_ID: creds.client_id, PAYCTL_CLIENT_SECRET: creds.client_secret };
}

/** What a CLI test file works with: its server, a temporary folder, the env pointing payctl at both. */
export interface CliServer {
  harness: TestServer;
  dir: string;
  env: Record<string, string>;
  /** Runs the built payctl against the server. */
  cli(...args: string[]): Promise<CliResult>;
}

export interface CliServerOptions {
  /** Options of the test server (default: in memory). */
  server?: Partial<ServerOptions> & { memory?: boolean };
  /** payctl's config folder inside the temporary folder (default: the folder itself). */
  configSubdir?: string;
  /** The time the build and the start may take (default 120 s). */
  setUpTimeoutMs?: number;
}

/**
 * The usual set-up of a CLI test file, registered with vitest: the commands built, a server and a
 * temporary folder (payctl's config folder, or its parent with `configSubdir`) before the file's
 * tests, both removed after them. A file's own beforeAll registered after this call runs after it.
 */
export function useCliServer(commandIds: readonly string[], prefix: string, options: CliServerOptions = {}): CliServer {
  const session = {
    cli: (...args: string[]) => runCli(args, { env: session.env }),
  } as CliServer;
  beforeAll(async () => {
    ensureBuilt(commandIds);
    session.harness = await startTestServer(options.server ?? { memory: true });
    session.dir = mkdtempSync(join(tmpdir(), prefix));
    session.env = serverEnv(session.harness, options.configSubdir === undefined ? session.dir : join(session.dir, options.configSubdir));
  }, options.setUpTimeoutMs ?? 120_000);
  afterAll(async () => {
    await session.harness?.close();
    if (session.dir) rmSync(session.dir, { recursive: true, force: true });
  });
  return session;
}

/** The JSON a run printed, which must have exited 0 (the message shows what it printed instead). */
export function okJson<T = any>(result: CliResult): T {
  expect(result.code, `exit ${result.code}\nstdout:${result.stdout}\nstderr:${result.stderr}`).toBe(0);
  return JSON.parse(result.stdout) as T;
}

/** Runs payctl with only the given PAYCTL_* variables, CI=1 and no colour; stdin stays open. */
export function runCli(args: readonly string[], options: RunOptions = {}): Promise<CliResult> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith('PAYCTL_') && key !== 'FORCE_COLOR') env[key] = value;
  }
  Object.assign(env, { CI: '1', NO_COLOR: '1' });
  for (const [key, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO, 'bin/run.js'), ...args], { cwd: REPO, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, elapsedMs: Date.now() - started });
    });
  });
}

function newestMtime(dir: string, extension: string): Map<string, number> {
  const times = new Map<string, number>();
  const walk = (current: string) => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(extension)) times.set(relative(dir, path).slice(0, -extension.length), statSync(path).mtimeMs);
    }
  };
  if (existsSync(dir)) walk(dir);
  return times;
}

interface BuildState {
  compileStale: boolean;
  bundleStale: boolean;
  manifestStale: boolean;
}

function buildState(commandIds: readonly string[]): BuildState {
  const sources = newestMtime(join(REPO, 'src'), '.ts');
  const outputs = newestMtime(join(REPO, 'dist'), '.js');
  const compileStale = [...sources].some(([path, mtime]) => !path.endsWith('.d') && (outputs.get(path) ?? 0) < mtime);
  // bin/run.js runs the bundles, not the files tsc writes: they must be newer than every source and
  // than the scripts that make them (a changed bundle script changes the bundles' layout).
  const scripts = newestMtime(join(REPO, 'scripts'), '.mjs');
  const newestSource = Math.max(0, ...sources.values(), ...scripts.values());
  const mtimeOf = (path: string) => (existsSync(join(REPO, path)) ? statSync(join(REPO, path)).mtimeMs : 0);
  const bundleStale = ['dist/bundle/main.js', 'dist/server-bundle.cjs'].some((path) => mtimeOf(path) < newestSource);
  const manifestPath = join(REPO, 'oclif.manifest.json');
  const manifestCommands = existsSync(manifestPath)
    ? Object.keys((JSON.parse(readFileSync(manifestPath, 'utf8')) as { commands: Record<string, unknown> }).commands)
    : [];
  const manifestStale = mtimeOf('oclif.manifest.json') < mtimeOf('dist/bundle/main.js') || commandIds.some((id) => !manifestCommands.includes(id));
  return { compileStale, bundleStale, manifestStale };
}

/** Test files build in parallel processes: one builds while the others wait, then find nothing to do. */
function withBuildLock(build: () => void): void {
  const lock = join(REPO, 'dist', '.build-lock');
  mkdirSync(join(REPO, 'dist'), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    // A build takes about a minute on a loaded 2-core machine; a lock older than 10 minutes was
    // left by a killed run (breaking a live one would let two builds delete each other's chunks).
    if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > 600_000) rmSync(lock, { recursive: true, force: true });
    // Kept: the interval of a synchronous poll (ensureBuilt is sync) for the lock to go, bounded by the 10-minute break above.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
  }
  try {
    build();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * Compiles, bundles (CLI and server) and writes the oclif manifest when a source file is newer than
 * what was built from it, or when one of the given commands is missing from the manifest.
 */
export function ensureBuilt(commandIds: readonly string[]): void {
  const before = buildState(commandIds);
  if (!before.compileStale && !before.bundleStale && !before.manifestStale) return;
  withBuildLock(() => {
    const state = buildState(commandIds);
    const bin = (name: string) => join(REPO, 'node_modules/.bin', name);
    if (state.compileStale) {
      try {
        execFileSync(bin('tsc'), ['-p', 'tsconfig.build.json'], { cwd: REPO, stdio: 'pipe' });
      } catch (error) {
        // tsc still writes JavaScript when some other file fails to typecheck; only a missing entry is fatal.
        if (!existsSync(join(REPO, 'dist/cli-main.js'))) throw error;
      }
    }
    if (state.compileStale || state.bundleStale) {
      for (const script of ['scripts/bundle-server.mjs', 'scripts/bundle-cli.mjs']) {
        execFileSync(process.execPath, [script], { cwd: REPO, stdio: 'pipe' });
      }
    }
    if (state.compileStale || state.bundleStale || state.manifestStale) {
      execFileSync(bin('oclif'), ['manifest'], { cwd: REPO, stdio: 'pipe' });
    }
  });
}
