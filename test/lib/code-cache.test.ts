// requireWithCodeCache on real files: the CommonJS contract (exports, require from the file's own
// directory, __filename/__dirname), and each cache state: missing, used, rejected, not writable.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { codeCacheFile, requireWithCodeCache } from '../../src/lib/code-cache.js';
import { REPO, ensureBuilt } from '../commands/cli-harness.js';

interface Exported {
  answer: number;
  sibling: string;
  where: { file: string; dir: string };
  fail(): never;
}

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

function writeModule(answer = 42): string {
  dir = mkdtempSync(join(tmpdir(), 'payctl-code-cache-'));
  writeFileSync(join(dir, 'sibling.cjs'), "module.exports = 'from the sibling';\n");
  const file = join(dir, 'entry.cjs');
  writeFileSync(
    file,
    [
      `exports.answer = ${answer};`,
      "exports.sibling = require('./sibling.cjs');",
      'exports.where = { file: __filename, dir: __dirname };',
      "exports.fail = () => { throw new Error('thrown on line 5'); };",
      '',
    ].join('\n'),
  );
  return file;
}

/** Runs an ES module script in a fresh node process (no V8 flags, as `payctl serve` runs; vitest's own process is not one); its JSON output. */
function runScript<T>(script: string, nodeArgs: string[] = []): T {
  const out = execFileSync(process.execPath, [...nodeArgs, '--input-type=module', '-e', script], { cwd: REPO, env: { PATH: process.env.PATH } });
  return JSON.parse(out.toString()) as T;
}

/**
 * Loads in a fresh node process (with no flags, as `payctl serve` runs): within one process V8's
 * in-memory compilation cache would answer a second compile of the same source and hide the file cache.
 */
function loadInChild(file: string, save = false): { cache: string; answer: number; sibling: string; saved?: boolean } {
  const script = `import { requireWithCodeCache } from ${JSON.stringify(resolve(REPO, 'src/lib/code-cache.ts'))};
const loaded = requireWithCodeCache(${JSON.stringify(file)});
const saved = ${save} ? loaded.save() : undefined;
process.stdout.write(JSON.stringify({ cache: loaded.cache, answer: loaded.exports.answer, sibling: loaded.exports.sibling, saved }));`;
  return runScript(script, ['--import', 'tsx']);
}

describe('requireWithCodeCache', () => {
  it('evaluates CommonJS with require, __filename and __dirname of the file', () => {
    const file = writeModule();
    const loaded = requireWithCodeCache<Exported>(file);
    expect(loaded.cache).toBe('missing');
    expect(loaded.exports.answer).toBe(42);
    expect(loaded.exports.sibling).toBe('from the sibling');
    expect(loaded.exports.where).toEqual({ file, dir });
    // Stack traces name the file and its own line numbers.
    let stack = '';
    try {
      loaded.exports.fail();
    } catch (error) {
      stack = (error as Error).stack ?? '';
    }
    expect(stack).toContain('thrown on line 5');
    expect(stack).toContain(`${file}:4:`);
  });

  it('writes a cache that the next process uses, with the same exports', () => {
    const file = writeModule();
    expect(loadInChild(file, true)).toEqual({ cache: 'missing', answer: 42, sibling: 'from the sibling', saved: true });
    expect(statSync(codeCacheFile(file)).size).toBeGreaterThan(0);
    expect(loadInChild(file)).toEqual({ cache: 'used', answer: 42, sibling: 'from the sibling' });
  });

  it('falls back to compiling when the cache is damaged', () => {
    const file = writeModule();
    writeFileSync(codeCacheFile(file), Buffer.from('not a code cache at all, only some bytes'));
    expect(loadInChild(file, true)).toEqual({ cache: 'rejected', answer: 42, sibling: 'from the sibling', saved: true });
    expect(loadInChild(file).cache).toBe('used');
  });

  it('never runs a cache made for other source text, even of the same length', () => {
    // V8 checks a cache only against the source's length: the file name carries the source's hash.
    const file = writeModule();
    expect(loadInChild(file, true).saved).toBe(true);
    const before = readFileSync(file, 'utf8');
    const after = before.replace('exports.answer = 42;', 'exports.answer = 43;');
    expect(after.length).toBe(before.length);
    writeFileSync(file, after);
    expect(loadInChild(file, true)).toEqual({ cache: 'missing', answer: 43, sibling: 'from the sibling', saved: true });
    expect(loadInChild(file)).toEqual({ cache: 'used', answer: 43, sibling: 'from the sibling' });
  });

  it('reports a cache it cannot write instead of throwing', () => {
    const file = writeModule();
    const loaded = requireWithCodeCache<Exported>(file);
    rmSync(dirname(file), { recursive: true, force: true });
    expect(loaded.save()).toBe(false);
  });
});

/** Script lines that define `startServer`: from the bundle through its code cache, or from the unbundled modules. */
const STARTSERVER_FROM_BUNDLE = `import { requireWithCodeCache } from ${JSON.stringify(resolve(REPO, 'dist/lib/code-cache.js'))};
const { startServer } = requireWithCodeCache(${JSON.stringify(resolve(REPO, 'dist/server-bundle.cjs'))}).exports;`;
const STARTSERVER_FROM_MODULES = `import { startServer } from ${JSON.stringify(resolve(REPO, 'dist/server/index.js'))};`;

describe('the server bundle', () => {
  it('is built with a code cache that this node accepts', { timeout: 180_000 }, () => {
    ensureBuilt(['serve']);
    const script = `import { requireWithCodeCache } from ${JSON.stringify(resolve(REPO, 'dist/lib/code-cache.js'))};
const loaded = requireWithCodeCache(${JSON.stringify(resolve(REPO, 'dist/server-bundle.cjs'))});
process.stdout.write(JSON.stringify({ cache: loaded.cache, startServer: typeof loaded.exports.startServer }));`;
    expect(runScript(script)).toEqual({ cache: 'used', startServer: 'function' });
  });

  it("starts and routes as the unbundled modules do, with better-sqlite3's JavaScript inlined and its addon opened by path", { timeout: 180_000 }, () => {
    ensureBuilt(['serve']);
    const dbDir = mkdtempSync(join(tmpdir(), 'payctl-bundle-'));
    // Routed paths answer (401 without a token), near misses of their static segments are 404.
    const paths = ['/_payctl/health', '/_payctl/health/', '/_payctl/healt', '/_payctl/healthz', '/_payctl/hEalth', '/v2/payments/captures/ABC', '/v2/payments/capturez/ABC', '/v2/payments/captures', '/v1/notifications/webhooks-events/WH-1', '/v1/notifications/webhooks-eventz/WH-1', '/v2/invoicing/invoices', '/v2/invoicing/invoice'];
    const answer = (load: string, db: string) =>
      runScript<{ statuses: number[]; sqlite: string[] }>(`import { createRequire } from 'node:module';
import { get } from 'node:http';
${load}
const server = await startServer({ dbPath: ${JSON.stringify(join(dbDir, db))}, port: 0, credentialsFile: null, logLevel: 'fatal' });
const statuses = [];
for (const path of ${JSON.stringify(paths)}) {
  statuses.push(await new Promise((done, fail) => get(server.url + path, (res) => { res.resume(); res.on('end', () => done(res.statusCode)); }).on('error', fail)));
}
const sqlite = Object.keys(createRequire(import.meta.url).cache).filter((path) => path.includes('better-sqlite3')).map((path) => path.slice(path.lastIndexOf('better-sqlite3')));
await server.close();
process.stdout.write(JSON.stringify({ statuses, sqlite }));`);
    try {
      const bundled = answer(STARTSERVER_FROM_BUNDLE, 'bundled.db');
      const modules = answer(STARTSERVER_FROM_MODULES, 'modules.db');
      expect(bundled.statuses).toEqual(modules.statuses);
      expect(bundled.statuses.slice(0, 4)).toEqual([200, 200, 404, 404]);
      expect(bundled.statuses.slice(5, 7)).toEqual([401, 404]);
      expect(bundled.sqlite).toEqual(['better-sqlite3/build/Release/better_sqlite3.node']);
    } finally {
      rmSync(dbDir, { recursive: true, force: true });
    }
  });

  it("answers a bad body as the unbundled modules do, zod's English messages included, without loading Fastify's schema compilers", { timeout: 180_000 }, () => {
    ensureBuilt(['serve']);
    // The bundle leaves out Fastify's JSON-schema compilers (scripts/bundle-server.mjs).
    const answer = (load: string) =>
      runScript<{ status: number; name: string; details: Array<{ field: string; issue: string; description: string }>; loaded: string[] }>(`import { createRequire } from 'node:module';
${load}
const server = await startServer({ dbPath: ':memory:', port: 0, credentialsFile: null });
const { client_id, client_secret } = server.defaultCredentials;
const basic = Buffer.from(client_id + ':' + client_secret).toString('base64');
const token = await (await fetch(server.url + '/v1/oauth2/token', { method: 'POST', headers: { authorization: 'Basic ' + basic, 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials' })).json();
const response = await fetch(server.url + '/v2/payments/authorizations/0VF52814937998046/capture', { method: 'POST', headers: { authorization: 'Bearer ' + token.access_token, 'content-type': 'application/json' }, body: JSON.stringify({ final_capture: 'yes', amount: { currency_code: 'USD', value: 7 } }) });
const body = await response.json();
const loaded = Object.keys(createRequire(import.meta.url).cache).filter((path) => /ajv|fast-json-stringify/.test(path));
await server.close();
process.stdout.write(JSON.stringify({ status: response.status, name: body.name, details: body.details, loaded }));`);
    const bundled = answer(STARTSERVER_FROM_BUNDLE);
    const modules = answer(STARTSERVER_FROM_MODULES);
    expect(bundled.status).toBe(400);
    expect(bundled.name).toBe('INVALID_REQUEST');
    expect(bundled.details.map((detail) => detail.field).sort()).toEqual(['/amount/value', '/final_capture']);
    // zod's own English text, not an empty or placeholder message.
    expect(bundled.details.every((detail) => /expected/i.test(detail.description))).toBe(true);
    expect(bundled.details).toEqual(modules.details);
    expect(bundled.loaded).toEqual([]);
  });
});
