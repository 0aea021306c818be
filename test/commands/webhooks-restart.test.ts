// A `payctl serve` process killed (SIGKILL) with a delivery pending delivers it after a restart on
// the same database file.

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { httpRequest } from '../helpers/server.js';
import { freePort, startReceiver, tokenAt, waitUntil, type Receiver } from '../server/webhooks-support.js';
import { REPO, ensureBuilt } from './cli-harness.js';

let dir: string;
const children: ChildProcess[] = [];
let receiver: Receiver | undefined;

beforeAll(() => {
  ensureBuilt(['serve']);
  // `serve` loads dist/server-bundle.cjs when present: make sure it holds the current server.
  const bundle = join(REPO, 'dist/server-bundle.cjs');
  const stale = (() => {
    try {
      return statSync(bundle).mtimeMs < statSync(join(REPO, 'dist/server/notifications/dispatcher.js')).mtimeMs;
    } catch {
      return true;
    }
  })();
  if (stale) execFileSync(process.execPath, [join(REPO, 'scripts/bundle-server.mjs')], { cwd: REPO, stdio: 'pipe' });
  dir = mkdtempSync(join(tmpdir(), 'payctl-webhooks-kill-'));
}, 180_000);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await receiver?.close();
  rmSync(dir, { recursive: true, force: true });
});

const CREDENTIALS = ['--client-id', 'kill-test-client', '--client-secret', 'kill-test-secret', '--admin-key', 'kill-test-admin'];

async function serve(dbPath: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [join(REPO, 'bin/run.js'), 'serve', '--port', '0', '--db', dbPath, '--json', '--no-save-profile', ...CREDENTIALS], {
    env: { PATH: process.env.PATH, HOME: dir, PAYCTL_CONFIG_DIR: dir, CI: '1', NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const line = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('serve did not start in 30 s')), 30_000);
    createInterface({ input: child.stdout! }).once('line', (first) => {
      clearTimeout(timer);
      resolve(first);
    });
  });
  return { child, url: (JSON.parse(line) as { base_url: string }).base_url };
}

it('delivers after SIGKILL and restart what was pending', async () => {
  const dbPath = join(dir, 'payctl.db');
  const port = await freePort();
  const first = await serve(dbPath);
  const token = await tokenAt(first.url, 'kill-test-client', 'kill-test-secret');
  const call = (url: string, method: string, path: string, body?: unknown, bearer = token) =>
    httpRequest(`${url}${path}`, method, { token: bearer, ...(body !== undefined ? { body } : {}) });

  expect((await call(first.url, 'POST', '/v1/notifications/webhooks', { url: `http://127.0.0.1:${port}/hooks`, event_types: [{ name: '*' }] })).status).toBe(201);
  const event = await call(first.url, 'POST', '/v1/notifications/simulate-event', { url: `http://127.0.0.1:${port}/sim`, event_type: 'PAYMENT.CAPTURE.COMPLETED' });
  expect(event.status).toBe(202);
  await waitUntil(async () => {
    const [delivery] = (await call(first.url, 'GET', `/_payctl/deliveries?event_id=${event.body.id}`)).body.deliveries;
    return delivery?.attempt_count === 1;
  }, 10_000, 'the first (failed) attempt');

  first.child.kill('SIGKILL');
  await new Promise((resolve) => first.child.once('exit', resolve));

  receiver = await startReceiver(() => ({ status: 200 }), port);
  const second = await serve(dbPath);
  const token2 = await tokenAt(second.url, 'kill-test-client', 'kill-test-secret');
  expect((await call(second.url, 'POST', '/_payctl/clock', { advance_seconds: 60 }, token2)).status).toBe(200);
  const [delivered] = await receiver.waitFor(1, 10_000);
  expect(delivered?.path).toBe(`/sim/captures/${event.body.resource.id}`);
  expect(JSON.parse(delivered?.body as string).id).toBe(event.body.id);
  await waitUntil(async () => {
    const [delivery] = (await call(second.url, 'GET', `/_payctl/deliveries?event_id=${event.body.id}`, undefined, token2)).body.deliveries;
    return delivery?.status === 'DELIVERED';
  }, 5_000, 'the delivery to be recorded');
  second.child.kill('SIGTERM');
}, 120_000);
