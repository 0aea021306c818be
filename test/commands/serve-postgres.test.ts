// `payctl serve --db postgres://...` as a user runs it (when PAYCTL_TEST_PG names a cluster): the
// same --json line, the password never printed, the credentials file in the data folder (0600, one
// per database), and no folder named after the URL.

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyTestDatabase, testPostgresUrl, type TestDatabase } from '../helpers/postgres.js';

const BIN = resolve(__dirname, '../../bin/run.js');

describe.runIf(testPostgresUrl !== undefined)('payctl serve --db postgres://', () => {
  let dir: string;
  let dataDir: string;
  let database: TestDatabase;
  let child: ChildProcess | undefined;
  let ready: Record<string, string>;
  let stderr = '';
  let url: URL;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'payctl-serve-pg-'));
    dataDir = join(dir, 'data');
    database = await emptyTestDatabase();
    url = new URL(database.url);
    // The test cluster trusts local connections: the password is carried, never checked.
    url.password = 'hunter2-secret';
    child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--db', url.toString(), '--db-pool-size', '3', '--json', '--no-save-profile'], {
      cwd: dir,
      env: { PATH: process.env.PATH, HOME: dir, PAYCTL_CONFIG_DIR: dir, PAYCTL_DATA_DIR: dataDir, CI: '1', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const lines = createInterface({ input: child.stdout! });
    const line = await new Promise<string>((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`serve did not print its JSON line in 20 s; stderr: ${stderr}`)), 20_000);
      lines.once('line', (first) => {
        clearTimeout(timer);
        done(first);
      });
      child!.once('exit', (code) => fail(new Error(`serve exited with ${code}; stderr: ${stderr}`)));
    });
    ready = JSON.parse(line) as Record<string, string>;
  });

  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((done) => child!.once('exit', done));
      child.kill('SIGTERM');
      await exited;
    }
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('prints the same --json line, with the database URL but never its password', () => {
    expect(Object.keys(ready).sort()).toEqual(['admin_key', 'base_url', 'client_id', 'client_secret', 'db', 'payer_id']);
    const shown = new URL(ready.db!);
    expect(shown.password).toBe('***');
    expect(`${shown.host}${shown.pathname}`).toBe(`${url.host}${url.pathname}`);
    expect(JSON.stringify(ready)).not.toContain('hunter2');
    expect(stderr).not.toContain('hunter2');
  });

  it('serves the API: a token for the printed credentials', async () => {
    const response = await fetch(`${ready.base_url}/v1/oauth2/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${ready.client_id}:${ready.client_secret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    });
    expect(response.status).toBe(200);
  });

  it('keeps the credentials in one 0600 file per database in the data folder, named without the password', () => {
    const files = readdirSync(dataDir);
    expect(files).toEqual([`postgres-${url.hostname}-${url.port}-${database.name}.credentials.json`]);
    expect(statSync(join(dataDir, files[0]!)).mode & 0o777).toBe(0o600);
    expect(files[0]).not.toContain('hunter2');
  });

  it('made no folder named after the URL', () => {
    expect(existsSync(join(dir, 'postgres:'))).toBe(false);
    expect(readdirSync(dir).filter((name) => name.startsWith('postgres'))).toEqual([]);
  });
});
