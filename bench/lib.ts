// Benchmark plumbing: start the real `payctl serve`, drive load with autocannon, time processes.

import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';

export const ROOT = resolve(import.meta.dirname, '..');
export const BIN = join(ROOT, 'bin', 'run.js');

export interface Served {
  child: ChildProcess;
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  adminKey: string;
  db: string;
  /** Milliseconds from spawn to the first answered request. */
  firstAnswerMs: number;
  token(): Promise<string>;
  stop(): Promise<void>;
}

const made: string[] = [];
const beforeExit: Array<() => void> = [];
/** Runs `cleanup` (synchronously) when the bench exits or is stopped, before the temporary directories go. */
export function atExit(cleanup: () => void): void {
  beforeExit.push(cleanup);
}
// A full run makes ~25 directories, some with 150 MB databases: all go when the bench exits or is
// stopped by Ctrl-C or SIGTERM (BENCH_KEEP=1 keeps them, to look at a database afterwards).
function removeTempDirs(): void {
  for (const cleanup of beforeExit.splice(0)) {
    try {
      cleanup();
    } catch {
      // a cleanup that fails must not keep the others (or the directories) from going
    }
  }
  if (process.env.BENCH_KEEP === '1') return;
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}
process.on('exit', removeTempDirs);
for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
  process.once(signal, () => {
    removeTempDirs();
    process.exit(code);
  });
}

export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `payctl-bench-${prefix}-`));
  made.push(dir);
  return dir;
}

async function waitForHealth(url: string, deadline: number): Promise<void> {
  for (;;) {
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`no answer from ${url}`);
    await new Promise((done) => setTimeout(done, 5));
  }
}

/**
 * Starts `payctl serve` on a temporary database (or `db`: a file or a postgres:// URL) and waits for
 * its first answer; `extraArgs` are more serve flags. BENCH_BIN runs another build's bin/run.js (A/B);
 * BENCH_SERVE_ARGS adds flags to every serve the bench starts (`--no-journal`; not a flag the bench
 * already passes, such as `--db-pool-size`: use BENCH_PG_POOL_SIZE).
 */
export async function startServe(db?: string, env: NodeJS.ProcessEnv = {}, extraArgs: readonly string[] = []): Promise<Served> {
  const dir = tempDir('serve');
  const dbPath = db ?? join(dir, 'payctl.db');
  const started = performance.now();
  const nodeArgs = (env.BENCH_NODE_ARGS ?? process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  // As a user runs `payctl serve`: the bin itself; with BENCH_NODE_ARGS, node with those flags.
  const bin = process.env.BENCH_BIN ?? BIN;
  const serveArgs = ['serve', '--port', '0', '--db', dbPath, '--json', '--no-save-profile', ...extraArgs, ...(process.env.BENCH_SERVE_ARGS ?? '').split(' ').filter(Boolean)];
  const [command, args] = nodeArgs.length > 0 ? [process.execPath, [...nodeArgs, bin, ...serveArgs]] : [bin, serveArgs];
  const child = spawn(command, args, {
    env: { ...process.env, PAYCTL_CONFIG_DIR: dir, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((done, fail) => {
    child.once('exit', (code) => fail(new Error(`serve exited with ${code}`)));
    createInterface({ input: child.stdout! }).once('line', done);
  });
  const info = JSON.parse(line) as { base_url: string; client_id: string; client_secret: string; admin_key: string; db: string };
  await waitForHealth(`${info.base_url}/_payctl/health`, Date.now() + 10_000);
  const firstAnswerMs = performance.now() - started;
  return {
    child,
    baseUrl: info.base_url,
    clientId: info.client_id,
    clientSecret: info.client_secret,
    adminKey: info.admin_key,
    db: info.db,
    firstAnswerMs,
    async token() {
      const response = await fetch(`${info.base_url}/v1/oauth2/token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${info.client_id}:${info.client_secret}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: 'grant_type=client_credentials',
      });
      const json = (await response.json()) as { access_token: string };
      return json.access_token;
    },
    stop() {
      return new Promise<void>((done) => {
        if (child.exitCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
      });
    },
  };
}

/** RSS of a process in MB, from /proc (Linux). */
export async function rssMb(pid: number): Promise<number | null> {
  try {
    const { readFile } = await import('node:fs/promises');
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const match = /VmRSS:\s+(\d+) kB/.exec(status);
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

export interface LoadResult {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  total: number;
}

export interface LoadOptions {
  url: string;
  connections: number;
  durationSeconds: number;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Stop after this many requests instead of after the duration. */
  amount?: number;
  /** Per-request customisation (fresh request ids, rotating paths). */
  setupRequest?: (request: { method?: string; path?: string; headers?: Record<string, string>; body?: string }) => {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
  };
}

export async function load(options: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.durationSeconds,
    method: (options.method ?? 'GET') as 'GET',
    headers: options.headers ?? {},
    ...(options.body !== undefined ? { body: options.body } : {}),
    ...(options.amount !== undefined ? { amount: options.amount } : {}),
    ...(options.setupRequest ? { requests: [{ setupRequest: options.setupRequest as never }] } : {}),
  });
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    total: result.requests.total,
  };
}

/** Linux's USER_HZ, the unit of /proc's CPU times. */
export const CLOCK_TICKS = 100;

/** User plus system CPU of a process so far, in ms (Linux /proc). */
export function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

/** Median wall time, in ms, of running a command `runs` times. */
export async function medianRunMs(command: string, args: string[], runs: number, env: NodeJS.ProcessEnv = {}): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const started = performance.now();
    await new Promise<void>((done, fail) => {
      execFile(command, args, { env: { ...process.env, ...env } }, (error) => (error ? fail(error) : done()));
    });
    times.push(performance.now() - started);
  }
  return median(times);
}

/** The middle value (the mean of the two middle ones for an even count); NaN for none. */
export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

export async function api<T = any>(
  served: Served,
  token: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: T }> {
  const response = await fetch(`${served.baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
}

/** An order for `value` authorized at once (card payment source), returning the authorization id. */
export async function authorize(served: Served, token: string, value: string, currency = 'USD'): Promise<string> {
  const order = await api(served, token, 'POST', '/v2/checkout/orders', {
    intent: 'AUTHORIZE',
    purchase_units: [{ amount: { currency_code: currency, value } }],
    payment_source: { card: { number: '4111111111111111', expiry: '2030-12', name: 'Bench Buyer' } },
  }, { 'Service-Request-Id': randomUUID(), Prefer: 'return=representation' });
  if (order.status >= 300) throw new Error(`order create failed: ${order.status} ${JSON.stringify(order.body)}`);
  const authorized = await api(served, token, 'POST', `/v2/checkout/orders/${order.body.id}/authorize`, {}, {
    'Service-Request-Id': randomUUID(),
    Prefer: 'return=representation',
  });
  const id = authorized.body?.purchase_units?.[0]?.payments?.authorizations?.[0]?.id as string | undefined;
  if (!id) throw new Error(`authorize failed: ${authorized.status} ${JSON.stringify(authorized.body)}`);
  return id;
}
