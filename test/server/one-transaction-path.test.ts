// One way to open a transaction: outside src/server/db/, every transaction goes through
// deps.storage.transaction. A new raw `.transaction(` (which would skip the guard, group commit and,
// later, the PostgreSQL adapter's retries and locks) fails here, in CI.

import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const serverDir = join(root, 'src', 'server');
const adapterDir = join(serverDir, 'db') + sep;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|js|mjs|cjs)$/.test(entry.name) ? [path] : [];
  });
}

/** What in a file opens a transaction some other way than deps.storage.transaction. */
function bypassesIn(text: string): string[] {
  const found: string[] = [];
  for (const [line, content] of text.split('\n').entries()) {
    // The storage layer's own method is the one allowed call; anything else named .transaction( is not.
    if (/\.transaction\(/.test(content.replace(/\bstorage\.transaction\(/g, ''))) found.push(`${line + 1}: .transaction(`);
    if (/committer\.run\(/.test(content)) found.push(`${line + 1}: committer.run(`);
    if (/from\s+['"][^'"]*db\/transaction\.js['"]/.test(content)) found.push(`${line + 1}: imports db/transaction.js`);
  }
  return found;
}

describe('one transaction path', () => {
  const files = sourceFiles(serverDir).filter((path) => !path.startsWith(adapterDir));

  it('sees the server sources (positive control: the scan is not empty)', () => {
    expect(files.length).toBeGreaterThan(50);
    expect(files.some((path) => path.endsWith(join('http', 'idempotency.ts')))).toBe(true);
  });

  it('finds every kind of bypass in a sample, and passes the storage call', () => {
    expect(bypassesIn('await deps.db.transaction().execute(async (trx) => {')).toHaveLength(1);
    expect(bypassesIn('db.transaction().setIsolationLevel("serializable")')).toHaveLength(1);
    expect(bypassesIn('return deps.committer.run(async (trx) => {')).toHaveLength(1);
    expect(bypassesIn("import { inTransaction } from '../db/transaction.js';")).toHaveLength(1);
    expect(bypassesIn("await deps.storage.transaction({ name: 'x' }, (trx) => work(trx));")).toEqual([]);
    expect(bypassesIn("this.deps.storage.transaction({ name: 'x' }, async (trx) => { await trx.transaction() })")).toHaveLength(1);
  });

  it('no file under src/server outside db/ opens a transaction any other way', () => {
    const offenders = files.flatMap((path) => bypassesIn(readFileSync(path, 'utf8')).map((what) => `${relative(root, path)}:${what}`));
    expect(offenders).toEqual([]);
  });
});
