// `payctl serve --journal-size N` and `--no-journal` from the built binary, as a user runs them.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';

const BIN = resolve(__dirname, '../../bin/run.js');

interface Served {
  child: ChildProcess;
  info: { base_url: string; client_id: string; client_secret: string; admin_key: string };
  dir: string;
}

const running: Served[] = [];

async function serve(flags: string[]): Promise<Served> {
  const dir = mkdtempSync(join(tmpdir(), 'payctl-serve-journal-'));
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--db', ':memory:', '--json', '--no-save-profile', ...flags], {
    env: { PATH: process.env.PATH, HOME: dir, PAYCTL_CONFIG_DIR: dir, CI: '1', NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const line = await new Promise<string>((done, fail) => {
    const timer = setTimeout(() => fail(new Error('serve did not print its JSON line in 20 s')), 20_000);
    createInterface({ input: child.stdout! }).once('line', (text) => {
      clearTimeout(timer);
      done(text);
    });
  });
  const served = { child, info: JSON.parse(line) as Served['info'], dir };
  running.push(served);
  return served;
}

async function token(served: Served): Promise<string> {
  const basic = Buffer.from(`${served.info.client_id}:${served.info.client_secret}`).toString('base64');
  const answer = await fetch(`${served.info.base_url}/v1/oauth2/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  return ((await answer.json()) as { access_token: string }).access_token;
}

async function journalPaths(served: Served, bearer: string): Promise<string[]> {
  const answer = await fetch(`${served.info.base_url}/_payctl/requests?path=/v2`, { headers: { authorization: `Bearer ${bearer}` } });
  const body = (await answer.json()) as { items: Array<{ path: string }> };
  return body.items.map((item) => item.path);
}

afterEach(async () => {
  for (const served of running.splice(0)) {
    if (served.child.exitCode === null) {
      const exited = new Promise((done) => served.child.once('exit', done));
      served.child.kill('SIGTERM');
      await exited;
    }
    rmSync(served.dir, { recursive: true, force: true });
  }
});

describe('payctl serve journal flags', () => {
  it('--journal-size keeps the last N requests of a merchant', async () => {
    const served = await serve(['--journal-size', '2']);
    const bearer = await token(served);
    for (const id of ['A', 'B', 'C']) await fetch(`${served.info.base_url}/v2/payments/captures/${id}`, { headers: { authorization: `Bearer ${bearer}` } });
    expect(await journalPaths(served, bearer)).toEqual(['/v2/payments/captures/C', '/v2/payments/captures/B']);
  });

  it('--no-journal records nothing (and the default records)', async () => {
    const off = await serve(['--no-journal']);
    const on = await serve([]);
    for (const served of [off, on]) {
      const bearer = await token(served);
      await fetch(`${served.info.base_url}/v2/payments/captures/X`, { headers: { authorization: `Bearer ${bearer}` } });
    }
    expect(await journalPaths(off, await token(off))).toEqual([]);
    expect(await journalPaths(on, await token(on))).toEqual(['/v2/payments/captures/X']);
  });
});
