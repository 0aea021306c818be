// What one durable capture costs on PostgreSQL, in units the host's load does not change: CPU of the
// `payctl serve` process (from /proc), statements PostgreSQL ran (pg_stat_statements, when the
// server preloads it) and WAL bytes per capture, one capture at a time. A diagnosis tool beside
// `npm run bench`:
//   PAYCTL_BENCH_PG=postgres://... npx tsx bench/pg-capture-cost.ts [captures]

import { readFileSync } from 'node:fs';
import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { api, authorize, processCpuMs, startServe } from './lib.js';

const CAPTURES = Number(process.argv[2] ?? 400);
const WARM_UP = 200;

/** Read and write system calls of a process so far (Linux /proc): round trips to PostgreSQL show in them. */
function syscalls(pid: number): { reads: number; writes: number } {
  const io = readFileSync(`/proc/${pid}/io`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)`, 'm').exec(io)?.[1] ?? Number.NaN);
  return { reads: field('syscr'), writes: field('syscw') };
}

interface Counted {
  calls: number;
  /** Milliseconds PostgreSQL spent running and planning it, in all (planning only with pg_stat_statements.track_planning on). */
  execMs: number;
  planMs: number;
}

async function statements(client: pg.Client): Promise<{ total: number; byQuery: Map<string, Counted> } | undefined> {
  try {
    const { rows } = await client.query<{ query: string; calls: string; exec_ms: number; plan_ms: number }>(
      'SELECT query, calls, total_exec_time AS exec_ms, total_plan_time AS plan_ms FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())',
    );
    // One text may have several rows (per user, per nesting level): summed.
    const byQuery = new Map<string, Counted>();
    for (const row of rows) {
      const known = byQuery.get(row.query) ?? { calls: 0, execMs: 0, planMs: 0 };
      byQuery.set(row.query, { calls: known.calls + Number(row.calls), execMs: known.execMs + Number(row.exec_ms), planMs: known.planMs + Number(row.plan_ms) });
    }
    return { total: [...byQuery.values()].reduce((sum, counted) => sum + counted.calls, 0), byQuery };
  } catch {
    return undefined;
  }
}

/**
 * The cluster's WAL insert position. WAL written moves less with the host's speed than CPU time does;
 * it is the whole cluster's (background jobs included), and a checkpoint during the run adds full-page images.
 */
async function walPosition(client: pg.Client): Promise<string> {
  return (await client.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn() AS lsn')).rows[0]!.lsn;
}

async function walSince(client: pg.Client, since: string): Promise<string> {
  return (await client.query<{ bytes: string }>('SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1) AS bytes', [since])).rows[0]!.bytes;
}

async function main(): Promise<void> {
  const server = process.env.PAYCTL_BENCH_PG;
  if (!server) throw new Error('set PAYCTL_BENCH_PG to a PostgreSQL server URL');
  const name = `payctl_cost_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  const served = await startServe(url.toString(), {}, ['--signing-key-secret', randomBytes(32).toString('base64url')]);
  const client = new pg.Client({ connectionString: url.toString() });
  try {
    await client.connect();
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements').catch(() => undefined);
    const token = await served.token();
    const targets: string[] = [];
    for (let index = 0; index < 50; index++) targets.push(await authorize(served, token, '999999999.00'));
    // Planner statistics, as bench/postgres.ts gathers them after seeding: without them the
    // authorization lookup's plan depends on whether autovacuum has come by.
    await client.query('ANALYZE');
    const captureOnce = async (index: number) => {
      const answer = await api(served, token, 'POST', `/v2/payments/authorizations/${targets[index % targets.length]}/capture`, {
        amount: { currency_code: 'USD', value: '0.01' },
      }, { 'Service-Request-Id': randomUUID() });
      if (answer.status !== 200) throw new Error(`capture: ${answer.status} ${JSON.stringify(answer.body)}`);
    };
    for (let index = 0; index < WARM_UP; index++) await captureOnce(index);
    await client.query('SELECT pg_stat_statements_reset()').catch(() => undefined);
    const pid = served.child.pid!;
    const cpuBefore = processCpuMs(pid);
    const callsBefore = syscalls(pid);
    const walBefore = await walPosition(client);
    const times: number[] = [];
    for (let index = 0; index < CAPTURES; index++) {
      const started = performance.now();
      await captureOnce(index);
      times.push(performance.now() - started);
    }
    const cpu = processCpuMs(pid) - cpuBefore;
    const callsAfter = syscalls(pid);
    const walBytes = Number(await walSince(client, walBefore));
    const counted = await statements(client);
    times.sort((a, b) => a - b);
    const p50 = times[Math.floor(times.length / 2)]!;
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    process.stdout.write(`${CAPTURES} captures one at a time: serve CPU ${(cpu / CAPTURES).toFixed(2)} ms/capture, wall p50 ${p50.toFixed(2)} ms; load ${load}\n`);
    const per = (value: number) => (value / CAPTURES).toFixed(2);
    process.stdout.write(`system calls per capture: ${per(callsAfter.reads - callsBefore.reads)} reads, ${per(callsAfter.writes - callsBefore.writes)} writes\n`);
    process.stdout.write(`WAL per capture: ${(walBytes / CAPTURES).toFixed(0)} bytes (the whole cluster's, background jobs included)\n`);
    if (counted) {
      // The counting query itself is one call.
      process.stdout.write(`statements: ${((counted.total - 1) / CAPTURES).toFixed(2)} per capture\n`);
      const all = [...counted.byQuery.values()];
      const spent = (pick: (counted: Counted) => number) => (all.reduce((sum, counted) => sum + pick(counted), 0) / CAPTURES).toFixed(3);
      process.stdout.write(`PostgreSQL time per capture: running ${spent((c) => c.execMs)} ms, planning ${spent((c) => c.planMs)} ms\n`);
      /** A statement's line: calls per capture, then its running + planning time in µs per `per` (a call, or a capture). */
      const line = (query: string, { calls, execMs, planMs }: Counted, per: number, digits: number) => {
        const micros = (ms: number) => ((1000 * ms) / per).toFixed(0).padStart(4);
        return `  ${(calls / CAPTURES).toFixed(digits)} ${micros(execMs)} +${micros(planMs)}  ${query.replace(/\s+/g, ' ').slice(0, 130)}\n`;
      };
      const entries = [...counted.byQuery];
      process.stdout.write('  calls per capture, then µs per call running + planning:\n');
      for (const [query, statement] of entries.sort((a, b) => b[1].calls - a[1].calls)) {
        if (statement.calls >= CAPTURES / 2) process.stdout.write(line(query, statement, statement.calls, 2));
      }
      // Statements run less than once every two captures (batches, background jobs), by their time per capture.
      const rare = entries.filter(([, { calls }]) => calls < CAPTURES / 2).sort((a, b) => b[1].execMs + b[1].planMs - (a[1].execMs + a[1].planMs));
      process.stdout.write('  the others, by µs per capture running + planning:\n');
      for (const [query, statement] of rare.slice(0, 8)) process.stdout.write(line(query, statement, CAPTURES, 3));
    }
  } finally {
    await client.end();
    await served.stop();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

await main();
