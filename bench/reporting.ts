// The reporting part of `npm run bench` (BENCH_ONLY=reporting): one merchant with 1,000,000 balance
// movements over a year, seeded in bulk (one INSERT ... SELECT in the database, not through the API),
// then GET /v1/reporting/transactions one request at a time over random 31-day windows and pages of
// 100, through the real `payctl serve`, on SQLite and on PostgreSQL (bench/postgres.ts finds the
// cluster: PAYCTL_BENCH_PG, else a throwaway one). Target: p50 < 20 ms and p99 < 50 ms on each.

import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import pg from 'pg';
import { join } from 'node:path';
import { startServe, tempDir, type Served } from './lib.js';
import { databaseUrl, findPostgres, withClient } from './postgres.js';

type Record_ = (row: { workload: string; figure: string; baseline: string; ratio: string; target: string; ok: boolean | null }, raw: unknown) => void;

const MOVEMENTS = Number(process.env.BENCH_REPORTING_ROWS ?? 1_000_000);
const REQUESTS = Number(process.env.BENCH_REPORTING_REQUESTS ?? 300);
const DAY_MS = 86_400_000;
/** The movements spread evenly over this year (UTC): ~85,000 in a 31-day window. */
const YEAR_START = Date.parse('2025-01-01T00:00:00Z');
const YEAR_MS = 365 * DAY_MS;

const fmt = (value: number, digits = 0) => value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/**
 * Per movement number i: eight captures (gross 10.00 to 909.99, the sandbox's fee), then a refund of
 * part of the capture before it, then a payout; the running balance as the ledger writes it.
 */
const SHAPE = {
  kind: (i: string) => `CASE WHEN ${i} % 10 = 8 THEN 'REFUND' WHEN ${i} % 10 = 9 THEN 'PAYOUT' ELSE 'CAPTURE' END`,
  gross: (i: string) => `CASE WHEN ${i} % 10 = 8 THEN -(500 + ${i} % 1000) WHEN ${i} % 10 = 9 THEN -2000 ELSE 1000 + (${i} * 7919) % 90000 END`,
  fee: (i: string) => `CASE WHEN ${i} % 10 = 8 THEN 10 WHEN ${i} % 10 = 9 THEN 0 ELSE -((1000 + (${i} * 7919) % 90000) * 349 / 10000 + 49) END`,
};

export function seedSql(dialect: 'sqlite' | 'postgres'): string {
  const ref = (i: string) => (dialect === 'sqlite' ? `printf('BENCH%012d', ${i})` : `'BENCH' || lpad((${i})::text, 12, '0')`);
  const seconds = `${YEAR_START / 1000} + n * ${YEAR_MS / 1000 / MOVEMENTS}`;
  const time =
    dialect === 'sqlite'
      ? `strftime('%Y-%m-%dT%H:%M:%fZ', ${seconds}, 'unixepoch')`
      : `to_char(to_timestamp(${seconds}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  const numbers =
    dialect === 'sqlite'
      ? `WITH RECURSIVE numbers(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM numbers WHERE n < ${MOVEMENTS - 1})`
      : `WITH numbers AS (SELECT n FROM generate_series(0::bigint, ${MOVEMENTS - 1}) AS n)`;
  return `${numbers}
    INSERT INTO balance_movements (account_id, currency, amount_minor, kind, reference_id, create_time, gross_minor, fee_minor,
      balance_after, related_id, invoice_id, custom_id, instrument)
    SELECT $account, 'USD', gross + fee, kind, ref, time, gross, fee, SUM(gross + fee) OVER (ORDER BY n), related, invoice, NULL, NULL
    FROM (SELECT n, ${SHAPE.kind('n')} AS kind, ${SHAPE.gross('n')} AS gross, ${SHAPE.fee('n')} AS fee, ${ref('n')} AS ref, ${time} AS time,
      CASE WHEN n % 10 = 8 THEN ${ref('n - 1')} END AS related,
      CASE WHEN n % 10 < 8 THEN 'INV-' || n END AS invoice
      FROM numbers) AS shaped
    ORDER BY n`;
}

/** What the ledger keeps beside its movements: the balance, and the movements per day. */
export const balanceSql = `INSERT INTO balances (account_id, currency, available_minor)
  SELECT account_id, currency, SUM(amount_minor) FROM balance_movements WHERE account_id = $account GROUP BY account_id, currency
  ON CONFLICT (account_id, currency) DO UPDATE SET available_minor = excluded.available_minor`;
export const daysSql = `INSERT INTO balance_movement_days (account_id, day, movements)
  SELECT account_id, substr(create_time, 1, 10), COUNT(*) FROM balance_movements WHERE account_id = $account
  GROUP BY account_id, substr(create_time, 1, 10)`;

async function accountOf(served: Served, token: string): Promise<string> {
  const response = await fetch(`${served.baseUrl}/v1/reporting/balances`, { headers: { authorization: `Bearer ${token}` } });
  const body = (await response.json()) as { account_id: string };
  return body.account_id;
}

/** Sequential searches over random windows and pages; latencies in ms, sorted. */
async function measure(served: Served, token: string, requests: number): Promise<{ p50: number; p99: number; failed: number; meanItems: number }> {
  const latencies: number[] = [];
  let failed = 0;
  let items = 0;
  let seed = 12345;
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  const headers = { authorization: `Bearer ${token}` };
  for (let n = 0; n < requests + 10; n++) {
    const start = YEAR_START + Math.floor(random() * (YEAR_MS - 31 * DAY_MS));
    const windowMs = 31 * DAY_MS;
    const perWindow = Math.floor((MOVEMENTS * windowMs) / YEAR_MS);
    // Pages across the whole window: the first, the last and everything between.
    const page = 1 + Math.floor(random() * Math.max(1, Math.floor(perWindow / 100) - 1));
    const url = `${served.baseUrl}/v1/reporting/transactions?start_date=${new Date(start).toISOString()}&end_date=${new Date(start + windowMs).toISOString()}&page_size=100&page=${page}`;
    const began = performance.now();
    const response = await fetch(url, { headers });
    const body = (await response.json()) as { total_items?: number };
    const elapsed = performance.now() - began;
    if (response.status !== 200) failed++;
    // The first few warm the server's caches and the database's pages.
    if (n >= 10) {
      latencies.push(elapsed);
      items += body.total_items ?? 0;
    }
  }
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? Number.NaN;
  return { p50: at(0.5), p99: at(0.99), failed, meanItems: items / Math.max(1, latencies.length) };
}

function judge(record: Record_, engine: string, seedSeconds: number, result: Awaited<ReturnType<typeof measure>>, health: { p50: number; p99: number }): void {
  const load = loadAverage();
  record({
    workload: `reporting: 31-day page of 100 of ${fmt(MOVEMENTS)} movements, ${engine}`,
    figure: `p50 ${fmt(result.p50, 1)} ms, p99 ${fmt(result.p99, 1)} ms (${fmt(REQUESTS)} requests, ~${fmt(result.meanItems)} items a window, failed ${result.failed})`,
    baseline: `GET /_payctl/health p50 ${fmt(health.p50, 1)} ms, p99 ${fmt(health.p99, 1)} ms; seeded in ${fmt(seedSeconds, 1)} s; load average ${load}`,
    ratio: '-',
    target: 'p50 < 20 ms, p99 < 50 ms',
    ok: result.p50 < 20 && result.p99 < 50 && result.failed === 0,
  }, { ...result, seedSeconds, load });
}

/** The host's load average (1, 5, 15 minutes), a figure beside the measurement; '?' off Linux. */
function loadAverage(): string {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    return '?';
  }
}

/** Both starts of a database's server use the same credentials (the second finds the first's data). */
const SERVE_ARGS = [
  '--client-id', 'bench-reporting',
  '--client-secret', `bench-secret-${randomBytes(8).toString('hex')}`,
  '--admin-key', `bench-admin-${randomBytes(8).toString('hex')}`,
  '--signing-key-secret', randomBytes(32).toString('base64url'),
  '--credentials-file', join(tempDir('reporting-credentials'), 'credentials.json'),
];

/**
 * The merchant of a fresh database: `payctl serve` makes the schema and the account, then stops, so
 * that the seeding's long write does not stall the server's background jobs.
 */
async function prepareAccount(db?: string): Promise<{ account: string; db: string }> {
  const first = await startServe(db, {}, SERVE_ARGS);
  try {
    return { account: await accountOf(first, await first.token()), db: first.db };
  } finally {
    await first.stop();
  }
}

/** The host's floor in the same run: the same sequential requests to the server's health answer. */
async function healthMs(served: Served, requests: number): Promise<{ p50: number; p99: number }> {
  const latencies: number[] = [];
  for (let n = 0; n < requests; n++) {
    const began = performance.now();
    await (await fetch(`${served.baseUrl}/_payctl/health`)).text();
    latencies.push(performance.now() - began);
  }
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? Number.NaN;
  return { p50: at(0.5), p99: at(0.99) };
}

async function measureServed(db: string, record: Record_, engine: string, seedSeconds: number): Promise<Record<string, unknown>> {
  const served = await startServe(db, {}, SERVE_ARGS);
  try {
    const result = await measure(served, await served.token(), REQUESTS);
    const health = await healthMs(served, REQUESTS);
    judge(record, engine, seedSeconds, result, health);
    return { ...result, seedSeconds, health };
  } finally {
    await served.stop();
  }
}

async function benchSqliteReporting(record: Record_): Promise<Record<string, unknown>> {
  const { account, db } = await prepareAccount();
  const began = performance.now();
  const sqlite = new Database(db);
  sqlite.pragma('busy_timeout = 10000');
  sqlite.transaction(() => {
    sqlite.prepare(seedSql('sqlite')).run({ account });
    sqlite.prepare(balanceSql).run({ account });
    sqlite.prepare(daysSql).run({ account });
  })();
  sqlite.exec('ANALYZE');
  sqlite.close();
  return measureServed(db, record, 'SQLite', (performance.now() - began) / 1000);
}

async function benchPostgresReporting(record: Record_): Promise<Record<string, unknown>> {
  const found = findPostgres();
  if ('skipped' in found) {
    record({ workload: 'reporting: PostgreSQL skipped', figure: found.skipped, baseline: '-', ratio: '-', target: '-', ok: null }, { skipped: found.skipped });
    return { skipped: found.skipped };
  }
  const name = `payctl_bench_reporting_${randomBytes(4).toString('hex')}`;
  try {
    await withClient(found.url, (client) => client.query(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'`));
    const url = databaseUrl(found.url, name);
    const { account } = await prepareAccount(url);
    const began = performance.now();
    await withClient(url, async (client: pg.Client) => {
      await client.query('BEGIN');
      await client.query(seedSql('postgres').replaceAll('$account', '$1'), [account]);
      await client.query(balanceSql.replaceAll('$account', '$1'), [account]);
      await client.query(daysSql.replaceAll('$account', '$1'), [account]);
      await client.query('COMMIT');
      // As autovacuum would in time: the visibility map lets the count read the index alone.
      await client.query('VACUUM ANALYZE balance_movements');
    });
    return await measureServed(url, record, 'PostgreSQL', (performance.now() - began) / 1000);
  } finally {
    await withClient(found.url, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).catch(() => undefined);
    found.stop();
  }
}

export async function benchReporting(record: Record_): Promise<Record<string, unknown>> {
  process.stderr.write(`reporting (${fmt(MOVEMENTS)} movements, ${fmt(REQUESTS)} searches each)\n`);
  return { sqlite: await benchSqliteReporting(record), postgres: await benchPostgresReporting(record) };
}
