// Ctrl-C during a bulk refund or a payout batch, then the same command again: the work finishes
// and no money moves twice. The built binary talks to the server through a small proxy that holds
// a chosen request (so the interrupt lands part-way, with that request in flight) until the CLI is
// gone, then delivers it (the work is done, the answer lost) or drops it (it never arrived).

import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromMinorUnits, toMinorUnits } from '../../src/lib/money.js';
import { ensureBuilt, REPO } from '../commands/cli-harness.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

const figures: string[] = [];

// ---- a proxy that can slow, hold, deliver or drop requests ----

/** What to do with one request: hold it (or not) first, then deliver it or drop it. */
type Policy = (method: string, path: string) => Promise<'deliver' | 'drop'>;

interface Proxy {
  url: string;
  policy: Policy;
  /** Requests delivered to the server after their client went away included. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

async function startProxy(target: string): Promise<Proxy> {
  const pending = new Set<Promise<void>>();
  const proxy: Proxy = {
    url: '',
    policy: async () => 'deliver',
    settled: async () => {
      while (pending.size > 0) await Promise.all([...pending]);
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const forward = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const decision = await proxy.policy(req.method ?? 'GET', req.url ?? '/');
    if (decision === 'drop') {
      res.destroy();
      return;
    }
    await new Promise<void>((resolve) => {
      const upstream = httpRequest(`${target}${req.url ?? '/'}`, { method: req.method, headers: req.headers }, (answer) => {
        const body: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => body.push(chunk));
        answer.on('end', () => {
          // The client may be gone (interrupted): the server did the work, the answer is lost.
          if (!res.destroyed) {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            res.end(Buffer.concat(body));
          }
          resolve();
        });
      });
      upstream.on('error', () => {
        res.destroy();
        resolve();
      });
      upstream.end(Buffer.concat(chunks));
    });
  };
  const server: Server = createServer((req, res) => {
    res.on('error', () => undefined);
    const job = forward(req, res).finally(() => pending.delete(job));
    pending.add(job);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}

// ---- running the CLI ----

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

interface RunControl {
  /** Sends SIGINT when this resolves. */
  interruptOn?: Promise<unknown>;
}

function payctl(args: readonly string[], env: Record<string, string>, control: RunControl = {}): Promise<Run> {
  const started = Date.now();
  const childEnv: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith('PAYCTL_') && key !== 'FORCE_COLOR') childEnv[key] = value;
  }
  Object.assign(childEnv, { CI: '1', NO_COLOR: '1' }, env);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO, 'bin/run.js'), ...args], { cwd: REPO, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let interrupted = false;
    const interrupt = () => {
      if (interrupted) return;
      interrupted = true;
      child.kill('SIGINT');
    };
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    void control.interruptOn?.then(interrupt);
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started });
    });
  });
}

const lines = (stdout: string) => stdout.split('\n').filter((line) => line.trim().startsWith('{'));

let t: TestServer;
let proxy: Proxy;
let dir: string;

beforeAll(async () => {
  ensureBuilt(['payments:refund', 'payouts:create']);
  // Jobs every 100 ms: payout batches settle while the test waits.
  t = await startTestServer({ memory: true, config: { jobIntervalMs: 100 } });
  proxy = await startProxy(t.url);
  dir = mkdtempSync(join(tmpdir(), 'payctl-interrupt-'));
}, 120_000);

afterAll(async () => {
  await proxy?.close();
  await t?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  if (figures.length > 0) console.log(`[reliability] cli interrupts:\n  ${figures.join('\n  ')}`);
});

function cliEnv(configName: string, baseUrl = proxy.url): Record<string, string> {
  const creds = t.server.defaultCredentials;
  return {
    PAYCTL_CONFIG_DIR: join(dir, configName),
    PAYCTL_BASE_URL: baseUrl,
    PAYCTL_CLIENT_ID: creds.client_id,
    PAYCTL_CLIENT_SECRET: creds.client_secret,
  };
}

const post = (path: string, body: unknown = {}) =>
  t.request('POST', path, { body, headers: { 'service-request-id': randomUUID(), prefer: 'return=representation' } });

async function capturedPayment(value: string, currency: string): Promise<string> {
  const order = await post('/v2/checkout/orders', {
    intent: 'CAPTURE',
    purchase_units: [{ amount: { currency_code: currency, value } }],
    payment_source: { card: { number: '4111111111111111', expiry: '2030-12' } },
  });
  expect(order.status, order.text).toBe(201);
  const captured = await post(`/v2/checkout/orders/${order.body.id}/capture`);
  expect(captured.status, captured.text).toBe(201);
  return captured.body.purchase_units[0].payments.captures[0].id;
}

describe('payctl payments refund --from-file, interrupted and run again', () => {
  it('refunds every row exactly once over two interrupted runs and a third that finishes', async () => {
    // 12 captures; 30 rows: several partial refunds per capture, some "rest" rows, JPY and EUR.
    const captures: Array<{ id: string; currency: string; amount: bigint }> = [];
    for (let i = 0; i < 12; i += 1) {
      const currency = i === 10 ? 'JPY' : i === 11 ? 'EUR' : 'USD';
      const value = currency === 'JPY' ? '12000' : `${50 + i}.00`;
      captures.push({ id: await capturedPayment(value, currency), currency, amount: toMinorUnits(value, currency) });
    }
    type Row = { capture: number; amount?: string; currency: string; note: string };
    const rows: Row[] = [];
    for (let i = 0; i < 30; i += 1) {
      const capture = i % 12;
      const c = captures[capture]!;
      const last = i >= 24; // rows 25..30 are the last row of their capture
      const rest = last && capture % 3 === 0; // a few of those refund what is left
      const amount = rest ? undefined : c.currency === 'JPY' ? `${1000 + i}` : fromMinorUnits(BigInt(101 + i * 37), c.currency);
      rows.push({ capture, ...(amount !== undefined ? { amount } : {}), currency: i % 4 === 0 ? '' : c.currency, note: i % 5 === 0 ? `row ${i + 1}, "quoted"` : '' });
    }
    const csvCell = (text: string) => (/[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);
    const csv = ['capture_id,amount,currency,note', ...rows.map((row) => [captures[row.capture]!.id, row.amount ?? '', row.currency, csvCell(row.note)].join(','))].join('\n');
    const file = join(dir, 'refunds.csv');
    writeFileSync(file, `${csv}\n`);
    const expected = new Map<string, bigint>();
    for (const row of rows) {
      const c = captures[row.capture]!;
      const before = expected.get(c.id) ?? 0n;
      expected.set(c.id, row.amount === undefined ? c.amount : before + toMinorUnits(row.amount, c.currency));
    }
    const captureIds = captures.map((c) => c.id);
    const refundsInDb = () => t.server.db.selectFrom('refunds').select(['id', 'capture_id', 'amount_minor']).where('capture_id', 'in', captureIds).execute();

    const args = ['payments', 'refund', '--from-file', file, '--yes', '--json'];
    const env = cliEnv('refund-config');
    const firstIds = new Map<number, string>();
    for (const after of [4, 13]) {
      // The refund request after `after` answered rows is held at the proxy; Ctrl-C comes then, and
      // once the CLI is gone the request goes on to the server: done, but its answer lost.
      let posts = 0;
      let heldArrived!: () => void;
      const interruptOn = new Promise<void>((resolve) => (heldArrived = resolve));
      let cliGone!: () => void;
      const gone = new Promise<void>((resolve) => (cliGone = resolve));
      proxy.policy = async (method, path) => {
        if (method !== 'POST' || !path.includes('/refund')) return 'deliver';
        posts += 1;
        if (posts === after + 1) {
          heldArrived();
          await gone;
        }
        return 'deliver';
      };
      const run = await payctl(args, env, { interruptOn });
      cliGone();
      await proxy.settled();
      expect(run.code, run.stderr).toBe(130);
      expect(run.stderr).toMatch(/interrupted/i);
      const printed = lines(run.stdout).map((line) => JSON.parse(line) as { row: number; status: string; refund_id: string });
      expect(printed.map((outcome) => outcome.row)).toEqual(rows.slice(0, after).map((_, i) => i + 1));
      for (const outcome of printed) {
        expect(outcome.status).toBe('COMPLETED');
        const earlier = firstIds.get(outcome.row);
        // A row already done is answered with the same refund, not a new one.
        if (earlier !== undefined) expect(outcome.refund_id).toBe(earlier);
        firstIds.set(outcome.row, outcome.refund_id);
      }
      // The row in flight at Ctrl-C was refunded too, though the CLI never printed it.
      const inDb = await refundsInDb();
      expect(inDb.length).toBe(after + 1);
      figures.push(`refund run interrupted after ${printed.length} result lines with row ${after + 1} in flight (${inDb.length} refunds on the server), exit ${run.code}, ${run.ms} ms`);
    }
    proxy.policy = async () => 'deliver';

    const doneBefore = await refundsInDb();
    const final = await payctl(args, env);
    expect(final.code, final.stderr).toBe(0);
    const outcomes = lines(final.stdout).map((line) => JSON.parse(line) as { row: number; status: string; refund_id: string; capture_id: string });
    expect(outcomes.map((o) => o.row)).toEqual(rows.map((_, i) => i + 1));
    expect(outcomes.every((o) => o.status === 'COMPLETED')).toBe(true);
    for (const outcome of outcomes) {
      const earlier = firstIds.get(outcome.row);
      if (earlier !== undefined) expect(outcome.refund_id, `row ${outcome.row} was refunded again`).toBe(earlier);
    }
    // Every refund made before (printed or lost with the interrupt) is the answer to its row now.
    const finalIds = new Set(outcomes.map((o) => o.refund_id));
    expect(doneBefore.filter((refund) => !finalIds.has(refund.id))).toEqual([]);
    const inDb = await refundsInDb();
    expect(inDb.length).toBe(30);
    expect(new Set(outcomes.map((o) => o.refund_id))).toEqual(new Set(inDb.map((r) => r.id)));
    const totals = new Map<string, bigint>();
    for (const refund of inDb) totals.set(refund.capture_id, (totals.get(refund.capture_id) ?? 0n) + refund.amount_minor);
    expect(totals).toEqual(expected);
    const stored = await t.server.db.selectFrom('captures').select(['id', 'refunded_minor', 'status']).where('id', 'in', captureIds).execute();
    for (const capture of stored) expect(capture.refunded_minor).toBe(expected.get(capture.id));
    // One REFUND ledger movement per refund: the balance moved once per row.
    const movements = await t.server.db.selectFrom('balance_movements').select('reference_id').where('kind', '=', 'REFUND').execute();
    expect(movements.filter((m) => inDb.some((r) => r.id === m.reference_id)).length).toBe(30);
    const audit = await t.request('GET', '/_payctl/audit');
    expect(audit.body.ok, JSON.stringify(audit.body)).toBe(true);
    figures.push(`refund file of 30 rows over 12 captures: finished on the 3rd run (${final.ms} ms), ${doneBefore.length} rows done before it answered with their existing refund, 30 refunds in all, sums per capture as in the file`);
  });
});

describe('payctl payouts create --file, interrupted and run again', () => {
  const creds = () => t.server.defaultCredentials;

  async function balance(currency: string): Promise<bigint> {
    const shown = await t.request('GET', '/_payctl/balances');
    const entry = (shown.body.balances as Array<{ currency: string; value: string }>).find((b) => b.currency === currency);
    return entry ? toMinorUnits(entry.value, currency) : 0n;
  }

  async function batchesFor(senderBatchId: string) {
    return t.server.db.selectFrom('payout_batches').selectAll().where('sender_batch_id', '=', senderBatchId).execute();
  }

  async function settledBatch(id: string): Promise<{ batch_header: { batch_status: string; amount: { value: string }; fees: { value: string } } }> {
    let batch = await t.request('GET', `/v1/payments/payouts/${id}`);
    await waitFor(
      async () => {
        batch = await t.request('GET', `/v1/payments/payouts/${id}`);
        return batch.body.batch_header?.batch_status === 'SUCCESS';
      },
      { timeoutMs: 20_000, intervalMs: 100, what: () => `batch ${id} to settle (last: ${batch.text.slice(0, 300)})` },
    );
    return batch.body;
  }

  function payoutsFile(name: string, tag: string): { path: string; total: bigint } {
    const header = 'receiver,amount,currency,note,sender_item_id';
    const rows: string[] = [];
    let total = 0n;
    for (let i = 0; i < 30; i += 1) {
      const minor = BigInt(100 + i * 11);
      total += minor;
      rows.push(`payee-${tag}-${i}@example.com,${fromMinorUnits(minor, 'USD')},USD,"Bonus ${i + 1}, thanks",${tag}-${i}`);
    }
    const path = join(dir, name);
    writeFileSync(path, `${[header, ...rows].join('\n')}\n`);
    return { path, total };
  }

  async function senderBatchIdOf(path: string): Promise<string> {
    const { createHash } = await import('node:crypto');
    const { readFileSync } = await import('node:fs');
    return `payctl-${createHash('sha256').update(readFileSync(path)).digest('hex').slice(0, 40)}`;
  }

  beforeAll(async () => {
    const topUp = await post('/_payctl/balances', { currency: 'USD', value: '100000.00' });
    expect(topUp.status, topUp.text).toBe(200);
    expect(creds().client_id).toBeTruthy();
  });

  for (const fate of ['deliver', 'drop'] as const) {
    const story =
      fate === 'deliver'
        ? 'the batch request reached the server but its answer was lost: the re-run is refused naming that batch'
        : 'the batch request never reached the server: the re-run sends it';
    it(`one batch, balance moved once, when ${story}`, async () => {
      const { path, total } = payoutsFile(`payouts-${fate}.csv`, fate);
      const senderBatchId = await senderBatchIdOf(path);
      const before = await balance('USD');
      let seen!: () => void;
      const seenPromise = new Promise<void>((resolve) => (seen = resolve));
      let childGone!: () => void;
      const gonePromise = new Promise<void>((resolve) => (childGone = resolve));
      // Hold the batch request until Ctrl-C has ended the CLI, then deliver or drop it.
      proxy.policy = async (method, requestPath) => {
        if (method !== 'POST' || !requestPath.startsWith('/v1/payments/payouts')) return 'deliver';
        seen();
        await gonePromise;
        return fate;
      };
      const args = ['payouts', 'create', '--file', path, '--yes', '--json'];
      const interrupted = await payctl(args, cliEnv(`payouts-${fate}`), { interruptOn: seenPromise });
      childGone();
      await proxy.settled();
      proxy.policy = async () => 'deliver';
      expect(interrupted.code, interrupted.stderr).toBe(130);
      expect(interrupted.stdout).toBe('');
      expect(interrupted.stderr).toMatch(/interrupted/i);
      expect((await batchesFor(senderBatchId)).length).toBe(fate === 'deliver' ? 1 : 0);

      const again = await payctl(args, cliEnv(`payouts-${fate}`));
      const batches = await batchesFor(senderBatchId);
      expect(batches.length).toBe(1);
      const batchId = batches[0]!.id;
      if (fate === 'deliver') {
        // The same file maps to the same sender_batch_id: the service refuses it and names the batch.
        expect(again.code, again.stderr).toBe(2);
        expect(again.stderr).toContain('USER_BUSINESS_ERROR');
        expect(again.stderr).toContain(batchId);
      } else {
        expect(again.code, again.stderr).toBe(0);
        expect(JSON.parse(again.stdout).batch_header.payout_batch_id).toBe(batchId);
      }
      const settled = await settledBatch(batchId);
      const charged = toMinorUnits(settled.batch_header.amount.value, 'USD') + toMinorUnits(settled.batch_header.fees.value, 'USD');
      expect(toMinorUnits(settled.batch_header.amount.value, 'USD')).toBe(total);
      expect(before - (await balance('USD'))).toBe(charged);
      const items = await t.server.db.selectFrom('payout_items').select('id').where('batch_id', '=', batchId).execute();
      const paid = await t.server.db
        .selectFrom('balance_movements')
        .select('reference_id')
        .where('kind', '=', 'PAYOUT')
        .where('reference_id', 'in', items.map((item) => item.id))
        .execute();
      expect(items.length).toBe(30);
      expect(paid.length).toBe(30);
      figures.push(
        `payouts (${fate === 'deliver' ? 'answer lost' : 'request never arrived'}): interrupted exit ${interrupted.code}, re-run exit ${again.code}; ` +
          `1 batch of 30 items, balance down by ${fromMinorUnits(charged, 'USD')} USD once`,
      );
    });
  }
});
