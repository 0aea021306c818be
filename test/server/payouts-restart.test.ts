// Processing is resumable: a server stopped in the middle of a batch finishes it after a restart,
// with every item paid exactly once and the balance exact to the cent.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/server/index.js';
import { CHUNK_SIZE, processPayoutBatches } from '../../src/server/payouts/processing.js';
import { httpRequest } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

/** Jobs run only when the test (or a start-up catch-up) runs them. */
const QUIET = { jobIntervalMs: 3_600_000 };

let dir: string;
let dbPath: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'payctl-payouts-restart-'));
  dbPath = join(dir, 'payctl.db');
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function tokenOf(server: RunningServer, clientId = server.defaultCredentials.client_id, secret = server.defaultCredentials.client_secret) {
  const response = await fetch(`${server.url}/v1/oauth2/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
  return ((await response.json()) as { access_token: string }).access_token;
}

interface PlannedItem {
  receiver: string;
  cents: bigint;
  note?: string;
  charged: boolean;
}

/** Every third item to an account on the server (SUCCESS), every seventh blocked, the rest UNCLAIMED. */
function plan(count: number): PlannedItem[] {
  return Array.from({ length: count }, (_, i) => {
    const cents = BigInt(100 + (i % 997));
    if (i % 7 === 0) return { receiver: `blocked${i}@example.com`, cents, note: 'ERRPYO025', charged: false };
    return { receiver: i % 3 === 0 ? 'bob@example.com' : `nobody${i}@example.com`, cents, charged: true };
  });
}

const decimal = (cents: bigint) => `${cents / 100n}.${(cents % 100n).toString().padStart(2, '0')}`;
/** The fee schedule, restated: 2% half-up, capped at 20.00. */
const fee = (cents: bigint) => {
  const raw = (cents * 200n + 5_000n) / 10_000n;
  return raw < 2000n ? raw : 2000n;
};

async function setUp(server: RunningServer, items: PlannedItem[]): Promise<string> {
  const token = await tokenOf(server);
  const call = (method: string, path: string, body: unknown, auth = token) => httpRequest(`${server.url}${path}`, method, { body, token: auth });
  expect((await call('POST', '/_payctl/accounts', { email: 'bob@example.com' }, server.adminKey)).status).toBe(201);
  expect((await call('POST', '/_payctl/balances', { currency: 'USD', value: '100000.00' })).status).toBe(200);
  const created = await call('POST', '/v1/payments/payouts', {
    sender_batch_header: { sender_batch_id: 'resume-1', recipient_type: 'EMAIL' },
    items: items.map((item) => ({ receiver: item.receiver, amount: { currency: 'USD', value: decimal(item.cents) }, ...(item.note ? { note: item.note } : {}) })),
  });
  expect(created.status).toBe(201);
  return created.body.batch_header.payout_batch_id as string;
}

/** Reads the database file directly (WAL allows a reader beside the writer). */
function readDb<T>(read: (sqlite: BetterSqlite3.Database) => T): T {
  const sqlite = new BetterSqlite3(dbPath, { readonly: true, fileMustExist: true });
  sqlite.defaultSafeIntegers(true);
  try {
    return read(sqlite);
  } finally {
    sqlite.close();
  }
}

function settledCount(batchId: string): number {
  return readDb((sqlite) => {
    const row = sqlite.prepare("SELECT count(*) AS n FROM payout_items WHERE batch_id = ? AND status <> 'PENDING'").get(batchId) as { n: bigint };
    return Number(row.n);
  });
}

/** After the restart: the batch finished, each item settled, paid and announced exactly once. */
async function expectFinishedExactlyOnce(server: RunningServer, batchId: string, items: PlannedItem[]): Promise<void> {
  const token = await tokenOf(server);
  const batch = await httpRequest(`${server.url}/v1/payments/payouts/${batchId}?page_size=0`, 'GET', { token });
  expect(batch.body.batch_header.batch_status).toBe('SUCCESS');
  const rows = readDb((sqlite) => ({
    statuses: sqlite.prepare('SELECT status, count(*) AS n FROM payout_items WHERE batch_id = ? GROUP BY status ORDER BY status').all(batchId) as Array<{ status: string; n: bigint }>,
    items: sqlite.prepare('SELECT id FROM payout_items WHERE batch_id = ? ORDER BY position').all(batchId) as Array<{ id: string }>,
    movements: sqlite
      .prepare("SELECT reference_id, kind, count(*) AS n FROM balance_movements WHERE kind IN ('PAYOUT', 'PAYOUT_FEE') GROUP BY reference_id, kind")
      .all() as Array<{ reference_id: string; kind: string; n: bigint }>,
    events: sqlite.prepare('SELECT resource_id, count(*) AS n FROM events GROUP BY resource_id').all() as Array<{ resource_id: string; n: bigint }>,
    batchEvents: (sqlite.prepare('SELECT event_type FROM events WHERE resource_id = ? ORDER BY seq').all(batchId) as Array<{ event_type: string }>).map((row) => row.event_type),
    balance: (sqlite.prepare("SELECT available_minor FROM balances WHERE currency = 'USD'").get() as { available_minor: bigint }).available_minor,
  }));
  const successes = items.filter((_, i) => i % 7 !== 0 && i % 3 === 0).length;
  const blocked = items.filter((item) => !item.charged).length;
  expect(rows.statuses).toEqual([
    { status: 'BLOCKED', n: BigInt(blocked) },
    { status: 'SUCCESS', n: BigInt(successes) },
    { status: 'UNCLAIMED', n: BigInt(items.length - successes - blocked) },
  ]);
  const movements = new Map(rows.movements.map((row) => [`${row.reference_id}:${row.kind}`, row.n]));
  const events = new Map(rows.events.map((row) => [row.resource_id, row.n]));
  expect(rows.items).toHaveLength(items.length);
  rows.items.forEach(({ id }, i) => {
    const item = items[i]!;
    const counts = [movements.get(`${id}:PAYOUT`) ?? 0n, movements.get(`${id}:PAYOUT_FEE`) ?? 0n, events.get(id) ?? 0n];
    expect(counts, `item ${i}`).toEqual([item.charged ? 1n : 0n, item.charged && fee(item.cents) > 0n ? 1n : 0n, 1n]);
  });
  expect(rows.batchEvents).toEqual(['PAYMENT.PAYOUTSBATCH.PROCESSING', 'PAYMENT.PAYOUTSBATCH.SUCCESS']);
  const spent = items.filter((item) => item.charged).reduce((sum, item) => sum + item.cents + fee(item.cents), 0n);
  expect(rows.balance).toBe(10_000_000n - spent);
}

describe('resuming a batch after a restart', () => {
  it('finishes a batch stopped after two chunks, paying each item once', async () => {
    const items = plan(CHUNK_SIZE * 3 + 500);
    const first = await startServer({ dbPath, logLevel: 'silent', config: QUIET });
    let batchId: string;
    try {
      batchId = await setUp(first, items);
      expect(await processPayoutBatches(first.deps, { maxChunks: 2 })).toBe(2);
    } finally {
      await first.close();
    }
    expect(settledCount(batchId)).toBe(CHUNK_SIZE * 2);
    expect(readDb((sqlite) => (sqlite.prepare('SELECT status FROM payout_batches WHERE id = ?').get(batchId) as { status: string }).status)).toBe('PROCESSING');

    // Start-up catches up on due work before serving: the rest of the batch is paid then.
    const second = await startServer({ dbPath, logLevel: 'silent', config: QUIET });
    try {
      await expectFinishedExactlyOnce(second, batchId, items);
      // Another pass changes nothing.
      await second.deps.scheduler.runAll();
      await expectFinishedExactlyOnce(second, batchId, items);
    } finally {
      await second.close();
    }
  });

  it('finishes a batch whose server was killed (SIGKILL) in the middle of processing', async () => {
    const items = plan(CHUNK_SIZE * 8);
    const setup = await startServer({ dbPath, logLevel: 'silent', config: QUIET });
    let batchId: string;
    try {
      batchId = await setUp(setup, items);
    } finally {
      await setup.close();
    }

    // A separate process starts on the file and begins processing at once (start-up catch-up).
    const entry = resolve(import.meta.dirname, '../../src/server/index.ts');
    const code = `const { startServer } = await import(${JSON.stringify(entry)});
      await startServer({ dbPath: ${JSON.stringify(dbPath)}, logLevel: 'silent', config: { jobIntervalMs: 3600000 } });`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
      cwd: resolve(import.meta.dirname, '../..'),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    const settled = (): number => {
      try {
        return settledCount(batchId);
      } catch {
        return 0; // the child may be opening the file
      }
    };
    try {
      // Polled often: the kill must land after the first chunk committed and before the last.
      await waitFor(() => settled() >= CHUNK_SIZE || child.exitCode !== null, {
        timeoutMs: 30_000,
        intervalMs: 5,
        what: () => `the first chunk of ${CHUNK_SIZE} items to be settled (${settled()} so far; stderr: ${stderr})`,
      });
      child.kill('SIGKILL');
      await exited;
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    expect(stderr).toBe('');
    const afterKill = settledCount(batchId);
    // The kill landed mid-batch: some chunks committed, some not.
    expect(afterKill).toBeGreaterThanOrEqual(CHUNK_SIZE);
    expect(afterKill).toBeLessThan(items.length);
    expect(afterKill % CHUNK_SIZE).toBe(0);

    const restarted = await startServer({ dbPath, logLevel: 'silent', config: QUIET });
    try {
      await expectFinishedExactlyOnce(restarted, batchId, items);
    } finally {
      await restarted.close();
    }
  });
});
