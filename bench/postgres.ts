// The PostgreSQL part of `npm run bench`: durable captures at 50 connections through one and through
// two `payctl serve --db postgres://...` replicas (the built binary, real processes, the load spread
// over them), beside pgbench's TPC-B on the same cluster in the same run, and the latency of one
// capture at a time.
//
// Which PostgreSQL: PAYCTL_BENCH_PG (a server URL; the bench makes and drops its own databases in
// it), else a throwaway cluster from Debian's postgresql (/usr/lib/postgresql/*/bin) started with
// scripts/pg-cluster.sh in a temporary folder with durable settings and stopped at the end. With
// neither, the part is skipped and the table says so.

import { execFile, execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { CLOCK_TICKS, ROOT, api, atExit, authorize, load, medianRunMs, processCpuMs, startServe, tempDir, type LoadResult, type Served } from './lib.js';

type Record_ = (row: { workload: string; figure: string; baseline: string; ratio: string; target: string; ok: boolean | null }, raw: unknown) => void;

const fmt = (value: number, digits = 0) => value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

const CONNECTIONS = 50;
/** pgbench's clients, as the issue sets them (`pgbench -c 32 -T 10`). */
const PGBENCH_CLIENTS = 32;
/** TPC-B scale (`pgbench -i -s`); 1, pgbench's default, is one branch row that every transaction updates. */
const PGBENCH_SCALE = Number(process.env.BENCH_PGBENCH_SCALE ?? 1);
/**
 * Connections of each replica's pool (`payctl serve --db-pool-size`): 8 in all on this 2-core host.
 * More transactions in flight than the database has cores wait on each other (the merchant's rows,
 * PostgreSQL's own locks) and cost it more CPU per capture (docs/performance.md).
 */
const POOL_SIZE = Number(process.env.BENCH_PG_POOL_SIZE ?? 4);
/**
 * The captures rotate over this many authorizations of one merchant: every capture also moves the
 * merchant's one USD balance row, as every TPC-B transaction updates its one branch row at scale 1.
 */
const AUTHORIZATIONS = 100;
/**
 * Load before each measured run, so that every configuration is measured warm: the processes'
 * code compiled and their pools connected. The replicas share it, so each of two gets half of what
 * one replica gets: long enough for both.
 */
const WARM_UP_SECONDS = Number(process.env.BENCH_PG_WARM_UP_SECONDS ?? 3);
/** The informative run over several merchants: each has its own balance row (no one hot row). */
const MERCHANTS = Number(process.env.BENCH_PG_MERCHANTS ?? 10);
/** Durable: a commit is acknowledged once its WAL is flushed to disk. */
const DURABLE_SETTINGS = '-c fsync=on -c synchronous_commit=on -c full_page_writes=on';

// Every replica is started with the same fixed credentials and signing-key secret, as a team's
// deployment would be (the credentials file goes in a temporary folder, not the user's data folder).
const CREDENTIALS = [
  '--client-id', 'bench-app',
  '--client-secret', `bench-secret-${randomUUID()}`,
  '--admin-key', `bench-admin-${randomUUID()}`,
  '--signing-key-secret', randomBytes(32).toString('base64url'),
];

interface Cluster {
  /** Server URL (its own database is not used). */
  url: string;
  source: string;
  stop(): void;
}

function postgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((version) => existsSync(join(root, version, 'bin', 'postgres')))
    .sort((a, b) => Number(a) - Number(b));
  const newest = versions.at(-1);
  return newest === undefined ? undefined : join(root, newest, 'bin');
}

/** The PostgreSQL to measure on, or why there is none. */
export function findPostgres(): Cluster | { skipped: string } {
  const given = process.env.PAYCTL_BENCH_PG;
  if (given) return { url: given, source: 'PAYCTL_BENCH_PG', stop: () => undefined };
  if (!postgresBinDir()) return { skipped: 'no PostgreSQL: PAYCTL_BENCH_PG is not set and none is installed under /usr/lib/postgresql/*/bin' };
  const dir = tempDir('pg');
  const script = join(ROOT, 'scripts', 'pg-cluster.sh');
  const url = execFileSync(script, ['start', dir], { env: { ...process.env, PG_CLUSTER_OPTS: DURABLE_SETTINGS }, encoding: 'utf8' }).trim();
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    execFileSync(script, ['stop', dir], { stdio: 'ignore' });
  };
  atExit(stop);
  return { url, source: `a throwaway cluster (scripts/pg-cluster.sh, ${DURABLE_SETTINGS.replaceAll('-c ', '')})`, stop };
}

export function databaseUrl(server: string, name: string): string {
  const url = new URL(server);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

function run(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { maxBuffer: 16 * 2 ** 20 }, (error, stdout, stderr) => (error ? reject(new Error(`${command} ${args[0]}: ${stderr || error.message}`)) : resolve(stdout)));
  });
}

function pgbenchCommand(): string | undefined {
  const bin = postgresBinDir();
  if (bin && existsSync(join(bin, 'pgbench'))) return join(bin, 'pgbench');
  try {
    execFileSync('pgbench', ['--version'], { stdio: 'ignore' });
    return 'pgbench';
  } catch {
    return undefined;
  }
}

/** TPC-B: `pgbench -i -s SCALE`, then `pgbench -c 32 -T seconds`; its transactions per second. */
async function pgbench(url: string, seconds: number): Promise<{ tps: number; output: string } | { skipped: string }> {
  const command = pgbenchCommand();
  if (!command) return { skipped: 'pgbench not found' };
  await run(command, ['-i', '-q', '-s', String(PGBENCH_SCALE), url]);
  await withClient(url, (client) => client.query('CHECKPOINT'));
  const output = await run(command, ['-c', String(PGBENCH_CLIENTS), '-T', String(seconds), url]);
  const match = /tps = ([\d.]+) \(without initial connection time\)/.exec(output);
  if (!match) throw new Error(`pgbench printed no tps: ${output}`);
  return { tps: Number(match[1]), output };
}

/** Starts `count` replicas on one database at the same time (they migrate it together). */
async function startReplicas(url: string, count: number): Promise<Served[]> {
  const args = [...CREDENTIALS, '--credentials-file', join(tempDir('pg-credentials'), 'credentials.json'), '--db-pool-size', String(POOL_SIZE)];
  const started = await Promise.allSettled(Array.from({ length: count }, () => startServe(url, {}, args)));
  const failed = started.find((result) => result.status === 'rejected');
  const served = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  if (failed) {
    await Promise.all(served.map((replica) => replica.stop()));
    throw failed.reason;
  }
  return served;
}

/** What one capture goes to: an authorization and its merchant's token. */
interface Target {
  token: string;
  authorization: string;
}

async function tokenFor(served: Served, clientId: string, clientSecret: string): Promise<string> {
  const response = await fetch(`${served.baseUrl}/v1/oauth2/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  if (!response.ok) throw new Error(`token failed: ${response.status}`);
  return ((await response.json()) as { access_token: string }).access_token;
}

/**
 * AUTHORIZATIONS authorizations spread over `merchants` merchants (the default one, then accounts
 * made with the admin key), each with a token from `served`.
 */
async function seedTargets(served: Served, merchants: number): Promise<Target[]> {
  const tokens = [await served.token()];
  for (let made = 1; made < merchants; made++) {
    const account = await api(served, served.adminKey, 'POST', '/_payctl/accounts', { email: `bench-${made}-${randomUUID()}@example.com` });
    if (account.status >= 300) throw new Error(`account create failed: ${account.status} ${JSON.stringify(account.body)}`);
    tokens.push(await tokenFor(served, account.body.client_id as string, account.body.client_secret as string));
  }
  // One at a time: the set-up is not what is measured (and concurrent order authorizations of one
  // merchant deadlocked on PostgreSQL at 410c2f4: the account's FOR UPDATE after the FK checks' KEY SHARE).
  const targets: Target[] = [];
  for (let index = 0; index < AUTHORIZATIONS; index++) {
    const token = tokens[index % tokens.length]!;
    targets.push({ token, authorization: await authorize(served, token, '999999999.00') });
  }
  return targets;
}

/** The machine's busy CPU so far (every core: user, nice, system, irq, softirq, steal), in ms. */
function machineBusyMs(): number {
  const [user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  return (((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) * 1000) / CLOCK_TICKS;
}

/**
 * Where the CPU went during a measured run, per capture in ms: the serve processes, this process
 * (the load generator) and the rest of the machine (PostgreSQL's backends, and anything else that
 * ran: on a quiet host, PostgreSQL).
 */
export interface CpuPerCapture {
  serve: number;
  loadGenerator: number;
  rest: number;
  machineBusyPercent: number;
}

async function withCpu<T extends { total: number }>(replicas: Served[], run: () => Promise<T>): Promise<T & { cpu?: CpuPerCapture }> {
  if (process.platform !== 'linux') return run();
  const pids = replicas.map((replica) => replica.child.pid!);
  const serveBefore = pids.reduce((sum, pid) => sum + processCpuMs(pid), 0);
  const busyBefore = machineBusyMs();
  const selfBefore = process.cpuUsage();
  const started = performance.now();
  const result = await run();
  const wallMs = performance.now() - started;
  const self = process.cpuUsage(selfBefore);
  const serve = pids.reduce((sum, pid) => sum + processCpuMs(pid), 0) - serveBefore;
  const busy = machineBusyMs() - busyBefore;
  const loadGenerator = (self.user + self.system) / 1000;
  const per = (ms: number) => Math.round((ms / Math.max(1, result.total)) * 100) / 100;
  return {
    ...result,
    cpu: {
      serve: per(serve),
      loadGenerator: per(loadGenerator),
      rest: per(Math.max(0, busy - serve - loadGenerator)),
      machineBusyPercent: Math.round((busy / (wallMs * cpus().length)) * 100),
    },
  };
}

/** Captures of 0.01 at `connections` in all, spread evenly over the replicas, rotating over the targets. */
async function captureLoad(replicas: Served[], targets: Target[], seconds: number): Promise<LoadResult & { perReplica: LoadResult[] }> {
  let sent = 0;
  const perReplica = await Promise.all(
    replicas.map((replica) =>
      load({
        url: `${replica.baseUrl}/v2/payments/authorizations/${targets[0]!.authorization}/capture`,
        connections: CONNECTIONS / replicas.length,
        durationSeconds: seconds,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        setupRequest: (request) => {
          const target = targets[sent++ % targets.length]!;
          return {
            ...request,
            path: `/v2/payments/authorizations/${target.authorization}/capture`,
            headers: { ...request.headers, authorization: `Bearer ${target.token}`, 'Service-Request-Id': randomUUID() },
            body: JSON.stringify({ amount: { currency_code: 'USD', value: '0.01' } }),
          };
        },
      }),
    ),
  );
  return {
    requestsPerSecond: perReplica.reduce((sum, result) => sum + result.requestsPerSecond, 0),
    // The slower replica's percentiles: the figures are never better than one side's.
    p50: Math.max(...perReplica.map((result) => result.p50)),
    p99: Math.max(...perReplica.map((result) => result.p99)),
    errors: perReplica.reduce((sum, result) => sum + result.errors, 0),
    non2xx: perReplica.reduce((sum, result) => sum + result.non2xx, 0),
    total: perReplica.reduce((sum, result) => sum + result.total, 0),
    perReplica,
  };
}

/** One capture at a time on one connection for `seconds`: latency percentiles in ms. */
async function sequentialCaptures(served: Served, targets: Target[], seconds: number): Promise<{ p50: number; p99: number; count: number; failed: number }> {
  const times: number[] = [];
  let failed = 0;
  const deadline = performance.now() + seconds * 1000;
  while (performance.now() < deadline) {
    const started = performance.now();
    const target = targets[times.length % targets.length]!;
    const answer = await api(served, target.token, 'POST', `/v2/payments/authorizations/${target.authorization}/capture`, {
      amount: { currency_code: 'USD', value: '0.01' },
    }, { 'Service-Request-Id': randomUUID() });
    times.push(performance.now() - started);
    if (answer.status >= 300) failed += 1;
  }
  const sorted = times.sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
  return { p50: at(0.5), p99: at(0.99), count: sorted.length, failed };
}

/** One configuration: `count` replicas on a fresh database, a warm-up, then the measured load. */
async function measureReplicas(
  url: string,
  count: number,
  seconds: number,
  options: { sequentialSeconds?: number; merchants?: number } = {},
): Promise<{ load: LoadResult & { perReplica: LoadResult[]; cpu?: CpuPerCapture }; sequential?: Awaited<ReturnType<typeof sequentialCaptures>> }> {
  const replicas = await startReplicas(url, count);
  try {
    const first = replicas[0]!;
    // Tokens from the first replica, used on every replica: tokens are in the shared database.
    const targets = await seedTargets(first, options.merchants ?? 1);
    // Planner statistics for the seeded tables, as `pgbench -i` gathers them for its own (VACUUM
    // ANALYZE). Without them the plans depended on whether autovacuum (one pass a minute) had come
    // by: a capture's authorization lookup, planned for a table of no known size, scanned all of the
    // merchant's authorizations in some runs and not in others (docs/performance.md, session 22).
    await withClient(url, (client) => client.query('ANALYZE'));
    const sequential = options.sequentialSeconds ? await sequentialCaptures(first, targets, options.sequentialSeconds) : undefined;
    await captureLoad(replicas, targets, WARM_UP_SECONDS);
    await withClient(url, (client) => client.query('CHECKPOINT'));
    const measured = await withCpu(replicas, () => captureLoad(replicas, targets, seconds));
    return { load: measured, ...(sequential ? { sequential } : {}) };
  } finally {
    await Promise.all(replicas.map((replica) => replica.stop()));
  }
}

export async function benchPostgres(record: Record_, seconds: number): Promise<Record<string, unknown>> {
  const found = findPostgres();
  if ('skipped' in found) {
    record({ workload: 'postgres: skipped', figure: found.skipped, baseline: '-', ratio: '-', target: '-', ok: null }, { skipped: found.skipped });
    return { skipped: found.skipped };
  }
  const prefix = `payctl_bench_${randomBytes(4).toString('hex')}`;
  const names = { pgbench: `${prefix}_pgbench`, one: `${prefix}_one`, two: `${prefix}_two`, spread: `${prefix}_spread` };
  try {
    const server = await withClient(found.url, async (client) => {
      const show = async (name: string) => ((await client.query(`SHOW ${name}`)).rows[0] as Record<string, string>)[name] ?? '?';
      // Byte order, as SQLite sorts text (keyset pages and ORDER BY id).
      for (const name of Object.values(names)) await client.query(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`);
      return { version: await show('server_version'), fsync: await show('fsync'), synchronousCommit: await show('synchronous_commit') };
    });
    const durable = server.fsync === 'on' && server.synchronousCommit === 'on';
    // How busy the host is, in the unit the SQLite part's baselines use (a quiet 2-core host: ~70 ms).
    const nodeStartMs = await medianRunMs(process.execPath, ['-e', '0'], 5);
    const setting = `PostgreSQL ${server.version.split(' ')[0]}, fsync=${server.fsync}, synchronous_commit=${server.synchronousCommit}; node -e 0 ${fmt(nodeStartMs)} ms`;
    process.stderr.write(`  on ${found.source}: ${setting}\n`);

    // pgbench runs before the capture runs and again right after the judged two-replica run, each
    // time on its tables made anew (`pgbench -i`), and the baseline is the mean of the two: the
    // host's speed drifts during a bench, and one pgbench run a minute away from the judged run can
    // be on a faster or slower host than it was.
    const tpcbBefore = await pgbench(databaseUrl(found.url, names.pgbench), seconds);
    const one = await measureReplicas(databaseUrl(found.url, names.one), 1, seconds, { sequentialSeconds: Math.min(seconds, 5) });
    const two = await measureReplicas(databaseUrl(found.url, names.two), 2, seconds);
    // The second run's failure leaves the first as the baseline, said so, rather than losing the captures measured.
    const tpcbAfter = 'tps' in tpcbBefore ? await pgbench(databaseUrl(found.url, names.pgbench), seconds).catch((error: unknown) => ({ skipped: `failed: ${String(error)}` })) : undefined;
    const runs = 'tps' in tpcbBefore ? [tpcbBefore.tps, ...(tpcbAfter !== undefined && 'tps' in tpcbAfter ? [tpcbAfter.tps] : [])] : [];
    const pgbenchTps = runs.length === 0 ? undefined : runs.reduce((sum, tps) => sum + tps, 0) / runs.length;
    const pgbenchLabel =
      pgbenchTps === undefined
        ? `pgbench skipped (${'skipped' in tpcbBefore ? tpcbBefore.skipped : ''})`
        : runs.length === 2
          ? `pgbench ${fmt(pgbenchTps)} tps (mean of two runs)`
          : `pgbench ${fmt(pgbenchTps)} tps (the run before; the one after ${tpcbAfter !== undefined && 'skipped' in tpcbAfter ? tpcbAfter.skipped : 'did not run'})`;
    const tpcb = { before: tpcbBefore, after: tpcbAfter, meanTps: pgbenchTps };
    record({
      workload: `postgres: pgbench TPC-B, ${PGBENCH_CLIENTS} connections (scale ${PGBENCH_SCALE}, -T ${seconds}), before the capture runs and after the two-replica run`,
      figure: pgbenchTps === undefined ? pgbenchLabel : `${fmt(pgbenchTps)} tps (${runs.map((tps, index) => `${fmt(tps)} ${index === 0 ? 'before' : 'after'}`).join(', ')})`,
      baseline: setting,
      ratio: '-',
      target: '(the baseline)',
      ok: null,
    }, tpcb);

    const spread = MERCHANTS > 1 ? await measureReplicas(databaseUrl(found.url, names.spread), 2, seconds, { merchants: MERCHANTS }) : undefined;
    const ratio = (tps: number) => (pgbenchTps === undefined ? '-' : `${fmt((tps / pgbenchTps) * 100, 1)}%`);
    const cpuOf = (cpu: CpuPerCapture | undefined) =>
      cpu === undefined ? '' : `; CPU per capture: serve ${fmt(cpu.serve, 2)} ms, load generator ${fmt(cpu.loadGenerator, 2)} ms, rest (PostgreSQL) ${fmt(cpu.rest, 2)} ms, machine ${cpu.machineBusyPercent}% busy`;
    const figure = (result: LoadResult & { cpu?: CpuPerCapture }) =>
      `${fmt(result.requestsPerSecond)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms, non-2xx ${result.non2xx}, errors ${result.errors}${cpuOf(result.cpu)}`;
    record({
      workload: `postgres: capture 0.01, ${CONNECTIONS} connections, 1 replica (pool ${POOL_SIZE}), durable`,
      figure: figure(one.load),
      baseline: pgbenchLabel,
      ratio: ratio(one.load.requestsPerSecond),
      target: '(no target of its own; two replicas are judged)',
      ok: null,
    }, one.load);
    const twoRatio = pgbenchTps === undefined ? undefined : two.load.requestsPerSecond / pgbenchTps;
    record({
      workload: `postgres: capture 0.01, ${CONNECTIONS} connections over 2 replicas (pool ${POOL_SIZE} each), durable`,
      figure: figure(two.load),
      baseline: pgbenchLabel,
      ratio: ratio(two.load.requestsPerSecond),
      target: '>= 60% of pgbench; durable; no errors',
      ok: twoRatio === undefined ? null : twoRatio >= 0.6 && durable && two.load.non2xx === 0 && two.load.errors === 0,
    }, two.load);
    if (spread) {
      record({
        workload: `postgres: capture 0.01, ${CONNECTIONS} connections over 2 replicas, ${MERCHANTS} merchants (a balance row each), durable`,
        figure: figure(spread.load),
        baseline: pgbenchLabel,
        ratio: ratio(spread.load.requestsPerSecond),
        target: '(informative: the judged row has one merchant, as TPC-B at scale 1 has one branch)',
        ok: null,
      }, spread.load);
    }
    if (one.sequential) {
      record({
        workload: 'postgres: capture 0.01, one at a time (1 connection, 1 replica)',
        figure: `p50 ${fmt(one.sequential.p50, 2)} ms, p99 ${fmt(one.sequential.p99, 2)} ms (${fmt(one.sequential.count)} captures, ${one.sequential.failed} failed)`,
        baseline: '-',
        ratio: '-',
        target: '(reported, no target)',
        ok: null,
      }, one.sequential);
    }
    return { server, nodeStartMs, source: found.source, poolSize: POOL_SIZE, pgbenchScale: PGBENCH_SCALE, authorizations: AUTHORIZATIONS, merchants: MERCHANTS, pgbench: tpcb, one, two, spread };
  } finally {
    if (process.env.PAYCTL_BENCH_PG) {
      await withClient(found.url, async (client) => {
        for (const name of Object.values(names)) await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      }).catch((error: unknown) => process.stderr.write(`  could not drop the bench's databases: ${String(error)}\n`));
    }
    found.stop();
  }
}
