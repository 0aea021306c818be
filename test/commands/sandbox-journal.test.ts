// `payctl sandbox requests` and `payctl sandbox faults`: the built binary against the real server.

import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { REPO, ensureBuilt, okJson, runCli, serverEnv } from './cli-harness.js';
import { runInPty } from './pty.js';

let harness: TestServer;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  ensureBuilt(['sandbox:requests', 'sandbox:requests:get', 'sandbox:requests:clear', 'sandbox:faults:add', 'sandbox:faults:list', 'sandbox:faults:rm']);
  harness = await startTestServer({ memory: true, journalSize: 10_000 });
  dir = mkdtempSync(join(tmpdir(), 'payctl-cli-journal-'));
  env = serverEnv(harness, join(dir, 'config'));
}, 120_000);

afterAll(async () => {
  await harness?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const cli = (...args: string[]) => runCli(args, { env });

/** The journal is written shortly after each answer: waits until the request shows. */
async function journalHas(filter: string, count = 1): Promise<any[]> {
  let page = await harness.request('GET', `/_payctl/requests?${filter}`);
  await waitFor(
    async () => {
      page = await harness.request('GET', `/_payctl/requests?${filter}`);
      return page.status === 200 && page.body.items.length >= count;
    },
    { timeoutMs: 10_000, intervalMs: 50, what: () => `${count} journal entries for ${filter} (last: ${page.status} ${page.text.slice(0, 300)})` },
  );
  return page.body.items;
}

async function capturedOrder(value = '10.00'): Promise<{ order: string; capture: string }> {
  const created = await harness.request('POST', '/v2/checkout/orders', { body: { intent: 'CAPTURE', purchase_units: [{ amount: { currency_code: 'USD', value } }] } });
  await harness.request('POST', `/_payctl/orders/${created.body.id}/approve`, { body: {} });
  const captured = await harness.request('POST', `/v2/checkout/orders/${created.body.id}/capture`, { body: {}, headers: { prefer: 'return=representation' } });
  return { order: created.body.id, capture: captured.body.purchase_units[0].payments.captures[0].id };
}

async function authorization(): Promise<string> {
  const created = await harness.request('POST', '/v2/checkout/orders', { body: { intent: 'AUTHORIZE', purchase_units: [{ amount: { currency_code: 'USD', value: '9.00' } }] } });
  await harness.request('POST', `/_payctl/orders/${created.body.id}/approve`, { body: {} });
  const authorized = await harness.request('POST', `/v2/checkout/orders/${created.body.id}/authorize`, { body: {}, headers: { prefer: 'return=representation' } });
  return authorized.body.purchase_units[0].payments.authorizations[0].id;
}

/** payctl running in the background with its stdout piped to the test. */
function background(args: string[]): {
  child: ChildProcessWithoutNullStreams;
  output: () => string;
  waitFor: (pattern: RegExp) => Promise<void>;
  /** Resolves once the follow has read where the journal stands: what comes after is printed. */
  ready: Promise<void>;
  exit: Promise<number | null>;
} {
  const childEnv: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !key.startsWith('PAYCTL_')) childEnv[key] = value;
  Object.assign(childEnv, { CI: '1', NO_COLOR: '1' }, env);
  const child = spawn(process.execPath, [join(REPO, 'bin/run.js'), ...args], { cwd: REPO, env: childEnv, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  const watchers = new Set<() => void>();
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    for (const watcher of watchers) watcher();
  });
  let stderr = '';
  const ready = new Promise<void>((resolve) =>
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      if (stderr.includes('Press Ctrl-C to stop')) resolve();
    }),
  );
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  void exit.then(() => clearTimeout(timer));
  return {
    child,
    output: () => stdout,
    ready,
    waitFor: (pattern) =>
      new Promise((resolve) => {
        const check = () => {
          if (!pattern.test(stdout)) return;
          watchers.delete(check);
          resolve();
        };
        watchers.add(check);
        check();
      }),
    exit,
  };
}

describe('payctl sandbox requests', () => {
  it('lists requests (TSV piped, the page with --json), filters by path and status class, shows one with both bodies', async () => {
    const { order } = await capturedOrder('11.00');
    await harness.request('GET', '/v2/checkout/orders/NOPE-NOT-THERE');
    await journalHas('path=/v2/checkout/orders/NOPE-NOT-THERE');

    const tsv = await cli('sandbox', 'requests', '--path', '/v2/checkout/orders');
    expect(tsv.code, tsv.stderr).toBe(0);
    const [header, ...lines] = tsv.stdout.trim().split('\n');
    expect(header).toBe('Time\tMethod\tPath\tStatus\tDuration\tRequest id\tFault\tID');
    expect(lines.some((line) => line.includes(`POST\t/v2/checkout/orders/${order}/capture\t201`))).toBe(true);
    expect(lines.every((line) => line.split('\t')[2]?.startsWith('/v2/checkout/orders'))).toBe(true);

    const missing = okJson(await cli('sandbox', 'requests', '--status', '4xx', '--json'));
    expect(missing.items.map((entry: any) => entry.path)).toEqual(['/v2/checkout/orders/NOPE-NOT-THERE']);

    const captureEntry = okJson(await cli('sandbox', 'requests', '--path', `/v2/checkout/orders/${order}/capture`, '--json')).items[0];
    const detail = await cli('sandbox', 'requests', 'get', captureEntry.id);
    expect(detail.code, detail.stderr).toBe(0);
    expect(detail.stdout).toContain(`POST /v2/checkout/orders/${order}/capture`);
    expect(detail.stdout).toMatch(/Response body\n\{\n {2}"id": "/);
    const exact = okJson(await cli('sandbox', 'requests', 'get', captureEntry.id, '--json'));
    expect(exact.id).toBe(captureEntry.id);
    expect(JSON.stringify(exact.response_body)).toContain(order);
    // The token the CLI sent is not in what it shows.
    expect(JSON.stringify(exact.request_headers)).not.toContain(harness.merchant.token);
  }, 60_000);

  it('a bad --status or --since is a usage error naming the flag', async () => {
    const status = await cli('sandbox', 'requests', '--status', 'bad');
    expect(status.code).toBe(2);
    expect(status.stderr).toContain('--status');
    const since = await cli('sandbox', 'requests', '--since', 'yesterday-ish');
    expect(since.code).toBe(2);
    expect(since.stderr).toContain('--since');
  }, 30_000);

  it('--since 1h keeps recent requests; clear empties the journal', async () => {
    await harness.request('GET', '/_payctl/clock');
    await journalHas('path=/_payctl/clock');
    const recent = okJson(await cli('sandbox', 'requests', '--since', '1h', '--path', '/_payctl/clock', '--json'));
    expect(recent.items.length).toBeGreaterThan(0);
    const cleared = await cli('sandbox', 'requests', 'clear');
    expect(cleared.code, cleared.stderr).toBe(0);
    const page = await harness.request('GET', '/_payctl/requests?path=/_payctl/clock');
    expect(page.body.items).toEqual([]);
  }, 30_000);

  it('--follow --json streams each new request as one JSON line, and stops with exit 0 on SIGINT', async () => {
    const follow = background(['sandbox', 'requests', '--follow', '--json', '--path', '/v2/checkout/orders', '--limit', '0']);
    await follow.ready;
    const marker = await harness.request('POST', '/v2/checkout/orders', { body: { intent: 'CAPTURE', purchase_units: [{ amount: { currency_code: 'USD', value: '1.23' } }] } });
    await follow.waitFor(/"method":"POST","path":"\/v2\/checkout\/orders"/);
    const second = await harness.request('GET', `/v2/checkout/orders/${marker.body.id}`);
    expect(second.status).toBe(200);
    await follow.waitFor(new RegExp(`"method":"GET","path":"/v2/checkout/orders/${marker.body.id}"`));
    follow.child.kill('SIGINT');
    expect(await follow.exit).toBe(0);
    const lines = follow.output().trim().split('\n').map((line) => JSON.parse(line));
    // Oldest first, each once.
    const paths = lines.map((entry) => `${entry.method} ${entry.path}`);
    expect(paths.indexOf('POST /v2/checkout/orders')).toBeLessThan(paths.indexOf(`GET /v2/checkout/orders/${marker.body.id}`));
    expect(new Set(lines.map((entry) => entry.id)).size).toBe(lines.length);
  }, 60_000);

  it('--follow piped to a reader that goes away ends cleanly', async () => {
    const follow = background(['sandbox', 'requests', '--follow', '--limit', '0']);
    await follow.ready;
    await harness.request('GET', '/_payctl/clock');
    await follow.waitFor(/\/_payctl\/clock/);
    follow.child.stdout.destroy();
    await harness.request('GET', '/_payctl/clock');
    await harness.request('GET', '/_payctl/clock');
    expect(await follow.exit).toBe(0);
  }, 60_000);

  it('--follow on a terminal prints aligned lines as requests arrive, and Ctrl-C ends it', async () => {
    const run = runInPty(['sandbox', 'requests', '--follow', '--limit', '0'], { env, columns: 160 });
    await run.waitFor(/Press Ctrl-C to stop/);
    const { order } = await capturedOrder('3.00');
    // method, status, duration, path: fixed columns.
    await run.waitFor(new RegExp(`POST {4}201 +[\\d.]+ ms {2}/v2/checkout/orders/${order}/capture`));
    run.interrupt();
    const { code } = await run.done;
    expect(code).toBe(0);
  }, 60_000);
});

describe('payctl sandbox faults', () => {
  it('--status 500 after 2, once: the third capture fails, shows in the journal, and changes nothing; list counts it; rm removes it', async () => {
    const added = okJson(await cli('sandbox', 'faults', 'add', '--method', 'POST', '--path', '/v2/payments/authorizations/*/capture', '--after', '2', '--times', '1', '--status', '500', '--json'));
    expect(added).toMatchObject({ method: 'POST', path: '/v2/payments/authorizations/*/capture', after: 2, times: 1, respond: { status: 500 } });
    const outcomes: number[] = [];
    const ids: string[] = [];
    for (let i = 0; i < 4; i += 1) {
      const id = await authorization();
      ids.push(id);
      outcomes.push((await harness.request('POST', `/v2/payments/authorizations/${id}/capture`, { body: {} })).status);
    }
    expect(outcomes.map((status) => (status === 500 ? 500 : Math.floor(status / 100) * 100))).toEqual([200, 200, 500, 200]);
    // The faulted capture made nothing: the authorization is still there to capture.
    const faulted = await harness.request('GET', `/v2/payments/authorizations/${ids[2]}`);
    expect(faulted.body.status).toBe('CREATED');

    const list = await cli('sandbox', 'faults', 'list');
    expect(list.stdout).toContain('ID\tMethod\tPath\tAfter\tTimes\tAnswer\tMatched\tFired');
    expect(list.stdout).toContain(`${added.id}\tPOST\t/v2/payments/authorizations/*/capture\t2\t1\t500\t4\t1`);

    const entries = await journalHas(`status=500&path=/v2/payments/authorizations/${ids[2]}/capture`);
    expect(entries[0].fault_id).toBe(added.id);
    const tsv = await cli('sandbox', 'requests', '--status', '500');
    expect(tsv.stdout).toContain(`\t${added.id}\t`);

    const removed = await cli('sandbox', 'faults', 'rm', added.id, '--json');
    expect(okJson(removed)).toEqual({ id: added.id, deleted: true });
    expect(okJson(await cli('sandbox', 'faults', 'list', '--json')).items).toEqual([]);
  }, 90_000);

  it('every other kind: a named error, 429 with Retry-After, a delay then the real answer, a dropped connection', async () => {
    const add = (...args: string[]) => cli('sandbox', 'faults', 'add', '--method', 'POST', ...args, '--json');
    const declined = okJson(await add('--path', '/v2/checkout/orders/*/capture', '--error', 'UNPROCESSABLE_ENTITY:INSTRUMENT_DECLINED', '--times', '1'));
    expect(declined.respond).toEqual({ name: 'UNPROCESSABLE_ENTITY', issue: 'INSTRUMENT_DECLINED' });
    const created = await harness.request('POST', '/v2/checkout/orders', { body: { intent: 'CAPTURE', purchase_units: [{ amount: { currency_code: 'USD', value: '5.00' } }] } });
    await harness.request('POST', `/_payctl/orders/${created.body.id}/approve`, { body: {} });
    const refused = await harness.request('POST', `/v2/checkout/orders/${created.body.id}/capture`, { body: {} });
    expect(refused.status).toBe(422);
    expect(refused.body.details[0].issue).toBe('INSTRUMENT_DECLINED');
    expect((await harness.request('POST', `/v2/checkout/orders/${created.body.id}/capture`, { body: {} })).status).toBe(201);

    const limited = okJson(await add('--path', '/v1/notifications/webhooks', '--status', '429', '--retry-after', '7', '--times', '1'));
    expect(limited.respond).toEqual({ status: 429, retry_after: 7 });
    const answer = await harness.request('POST', '/v1/notifications/webhooks', { body: { url: 'https://example.com/hook', event_types: [{ name: '*' }] } });
    expect(answer.status).toBe(429);
    expect(answer.headers.get('retry-after')).toBe('7');

    const slow = okJson(await add('--path', '/v2/invoicing/generate-next-invoice-number', '--delay', '300ms', '--times', '1'));
    expect(slow.respond).toEqual({ delay_ms: 300 });
    const numbered = await harness.request('POST', '/v2/invoicing/generate-next-invoice-number', { body: {} });
    expect(numbered.status).toBe(200);
    expect(numbered.body.invoice_number).toMatch(/\d+/);

    const dropped = okJson(await add('--path', '/v1/payments/payouts', '--drop', '--times', '1'));
    expect(dropped.respond).toEqual({ drop: true });
    await expect(harness.request('POST', '/v1/payments/payouts', { body: {} })).rejects.toThrow();

    const all = await cli('sandbox', 'faults', 'rm', '--all');
    expect(all.code, all.stderr).toBe(0);
    expect(okJson(await cli('sandbox', 'faults', 'list', '--json')).items).toEqual([]);
  }, 90_000);

  it('flag mistakes are usage errors', async () => {
    const none = await cli('sandbox', 'faults', 'add', '--method', 'GET', '--path', '/x');
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--status, --error NAME:ISSUE, --delay or --drop');
    const badError = await cli('sandbox', 'faults', 'add', '--method', 'GET', '--path', '/x', '--error', 'declined');
    expect(badError.code).toBe(2);
    const retry = await cli('sandbox', 'faults', 'add', '--method', 'GET', '--path', '/x', '--status', '500', '--retry-after', '3');
    expect(retry.code).toBe(2);
    const rm = await cli('sandbox', 'faults', 'rm');
    expect(rm.code).toBe(2);
  }, 30_000);
});
