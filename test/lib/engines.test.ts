// Every installed package must accept the oldest Node the project promises (package.json "engines"):
// an `npm install` on that Node must print no EBADENGINE. Read from package-lock.json, which is what
// `npm install` resolves from; semver is the copy npm's own tooling already put in node_modules.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../commands/cli-harness.js';

const semver = createRequire(import.meta.url)('semver') as {
  minVersion(range: string): { version: string } | null;
  satisfies(version: string, range: string): boolean;
};

interface LockEntry {
  version?: string;
  engines?: unknown;
}

function readJson<T>(path: string): T {
  return JSON.parse(readFileSync(join(REPO, path), 'utf8')) as T;
}

/** Packages of the lock file whose `engines.node` refuses the given Node version. */
export function refusing(packages: Record<string, LockEntry>, nodeVersion: string): string[] {
  const refused: string[] = [];
  for (const [path, entry] of Object.entries(packages)) {
    const engines = entry.engines;
    // Some old packages wrote engines as an array of strings; npm ignores that form.
    if (path === '' || typeof engines !== 'object' || engines === null || Array.isArray(engines)) continue;
    const node = (engines as { node?: unknown }).node;
    if (typeof node !== 'string') continue;
    if (!semver.satisfies(nodeVersion, node)) refused.push(`${path}@${entry.version ?? '?'} requires node ${node}`);
  }
  return refused;
}

describe('dependencies and the promised Node version', () => {
  const promised = readJson<{ engines: { node: string } }>('package.json').engines.node;
  const oldest = semver.minVersion(promised)?.version ?? '';

  it('package.json promises Node 20.19 or later', () => {
    expect(promised).toBe('>=20.19');
    expect(oldest).toBe('20.19.0');
  });

  it('no installed package demands more than the oldest promised Node', () => {
    const lock = readJson<{ packages: Record<string, LockEntry> }>('package-lock.json');
    expect(Object.keys(lock.packages).length).toBeGreaterThan(100);
    expect(refusing(lock.packages, oldest)).toEqual([]);
  });

  it('the check catches a package that does (cookie 2 wants Node 22)', () => {
    const packages = { 'node_modules/light-my-request/node_modules/cookie': { version: '2.0.2', engines: { node: '>=22' } } };
    expect(refusing(packages, oldest)).toEqual(['node_modules/light-my-request/node_modules/cookie@2.0.2 requires node >=22']);
  });

  it("Fastify's light-my-request gets a cookie that accepts Node 20 and exports what it calls", () => {
    const fromLightMyRequest = createRequire(join(REPO, 'node_modules/light-my-request/lib/cookies.js'));
    const cookie = fromLightMyRequest('cookie') as { stringifySetCookie?: (cookie: { name: string; value: string; path?: string }) => string };
    const manifest = fromLightMyRequest('cookie/package.json') as { version: string; engines: { node: string } };
    expect(semver.satisfies(oldest, manifest.engines.node), `cookie@${manifest.version}`).toBe(true);
    expect(cookie.stringifySetCookie?.({ name: 'a', value: 'b c', path: '/x' })).toBe('a=b%20c; Path=/x');
  });
});
