// Domains talk through interfaces: read from the import graph of src/server. A file of one domain
// (src/server/X/) may import from another domain (src/server/Y/) only Y's interface module,
// Y/api.ts; the shared layers below every domain are open to all; core/ and db/ import nothing
// from http/; route files call only their own domain. docs/architecture.md says why.

import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const serverDir = join(root, 'src', 'server');

/**
 * Shared by every domain: the plumbing, not a domain. core/ (clock, ids, outbox writer, the deps
 * every service gets), db/ (storage, stores' helpers, migrations), http/ (errors, auth,
 * idempotency, validation, links), ledger/ (the balance book every money step writes in the
 * request's transaction).
 */
export const SHARED = ['core', 'db', 'http', 'ledger'] as const;
/** The one module of a domain that the others may import. */
export const INTERFACE_MODULE = 'api.ts';
/** Layers that must not reach up: [from, to]. */
const FORBIDDEN_LAYER_EDGES: ReadonlyArray<readonly [string, string]> = [
  ['core', 'http'],
  ['db', 'http'],
];
/**
 * Known imports that break the rule, each with the reason it is still here. Every entry must still
 * exist (a stale one fails below): remove it when the import goes.
 */
const KNOWN_EXCEPTIONS: ReadonlyArray<{ from: string; to: string; why: string }> = [
  // The expiry and deadline sweeps are being moved to the scheduler by another change (issue 26);
  // they list every account to sweep. They go through oauth/api.ts once that change lands.
  { from: 'payments/expiry.ts', to: 'oauth/store.ts', why: 'sweep jobs list accounts; rewritten with the sweeps' },
  { from: 'disputes/deadlines.ts', to: 'oauth/store.ts', why: 'sweep jobs list accounts; rewritten with the sweeps' },
];

export interface Edge {
  /** Both relative to src/server, with / separators. */
  from: string;
  to: string;
  typeOnly: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.ts$/.test(entry.name) ? [path] : [];
  });
}

const posix = (path: string) => path.split(sep).join('/');

/** Every relative import (static, re-export, side effect, dynamic) of a file, resolved to a .ts path. */
export function importsOf(file: string, text: string): Edge[] {
  const edges: Edge[] = [];
  const patterns = [
    /(?:^|\n)\s*(import|export)\s+(type\s+)?[^'";]*?\sfrom\s*['"]([^'"]+)['"]/g,
    /(?:^|\n)\s*(import)()\s*['"]([^'"]+)['"]/g,
    /(import)\(()\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const pattern of patterns) {
    for (const match of text.matchAll(pattern)) {
      const specifier = match[3] ?? '';
      if (!specifier.startsWith('.')) continue;
      const target = resolve(dirname(file), specifier).replace(/\.js$/, '.ts');
      edges.push({ from: posix(relative(serverDir, file)), to: posix(relative(serverDir, target)), typeOnly: Boolean(match[2]) });
    }
  }
  return edges;
}

/** The folder of src/server a path is in, or undefined for a top-level file (the wiring: app, index, domains, bootstrap) or one outside src/server. */
function areaOf(path: string): string | undefined {
  if (path.startsWith('..')) return undefined;
  const parts = path.split('/');
  return parts.length > 1 ? parts[0] : undefined;
}

const isShared = (area: string) => (SHARED as readonly string[]).includes(area);

/** What is wrong with an edge, or undefined. */
export function violation(edge: Edge): string | undefined {
  const from = areaOf(edge.from);
  const to = areaOf(edge.to);
  if (from === undefined) return undefined; // the wiring may import anything
  if (to === undefined) {
    // A top-level module: only the type of the wired interfaces (core/deps.ts names DomainApis).
    if (edge.to.startsWith('..')) return undefined;
    return edge.typeOnly && edge.to === 'domains.ts' ? undefined : `${edge.from} imports the wiring module ${edge.to}`;
  }
  if (from === to) return undefined;
  for (const [low, high] of FORBIDDEN_LAYER_EDGES) {
    if (from === low && to === high) return `${edge.from} imports ${edge.to}: ${low}/ must not depend on ${high}/`;
  }
  if (isShared(to)) return undefined;
  if (edge.to === `${to}/${INTERFACE_MODULE}`) return undefined;
  return `${edge.from} imports ${edge.to}: another domain is reached only through ${to}/${INTERFACE_MODULE}`;
}

/** A route file that calls another domain's interface (routes call their own domain only). */
function routeCallsOtherDomain(path: string, text: string): string | undefined {
  if (!path.endsWith('routes.ts') && !/-routes\.ts$/.test(path)) return undefined;
  return /\bdomains\.[a-z]+\./.test(text) ? `${path} calls another domain (deps.domains.*) from a route: call your own domain's service` : undefined;
}

describe('domain boundaries', () => {
  const files = sourceFiles(serverDir);
  const texts = new Map(files.map((file) => [file, readFileSync(file, 'utf8')]));
  const edges = files.flatMap((file) => importsOf(file, texts.get(file) ?? ''));
  const isKnown = (edge: Edge) => KNOWN_EXCEPTIONS.some((known) => known.from === edge.from && known.to === edge.to);

  it('reads the import graph (positive control: known edges are seen)', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(edges).toContainEqual({ from: 'disputes/render.ts', to: 'payments/api.ts', typeOnly: true });
    expect(edges).toContainEqual({ from: 'orders/schema.ts', to: 'payments/api.ts', typeOnly: false });
    expect(edges).toContainEqual({ from: 'domains.ts', to: 'payments/api.ts', typeOnly: false });
  });

  it('finds a violation when there is one', () => {
    const text = "import { x } from '../payments/store.js';\nimport type {\n  Y,\n} from '../payments/present.js';\nexport { z } from '../http/errors.js';\n";
    const found = importsOf(join(serverDir, 'orders', 'service.ts'), text).map(violation).filter(Boolean);
    expect(found).toEqual([
      'orders/service.ts imports payments/store.ts: another domain is reached only through payments/api.ts',
      'orders/service.ts imports payments/present.ts: another domain is reached only through payments/api.ts',
    ]);
    expect(violation({ from: 'core/deps.ts', to: 'http/read-cache.ts', typeOnly: true })).toMatch(/core\/ must not depend on http\//);
    expect(violation({ from: 'payments/routes.ts', to: 'oauth/store.ts', typeOnly: false })).toMatch(/only through oauth\/api.ts/);
    expect(routeCallsOtherDomain('payments/routes.ts', 'await ctx.deps.domains.oauth.setKycStatus(ctx.db)')).toBeDefined();
  });

  it('a domain imports from another only its api.ts; core/ and db/ nothing of http/', () => {
    const problems = edges.filter((edge) => !isKnown(edge)).map(violation).filter((problem) => problem !== undefined);
    expect(problems).toEqual([]);
  });

  it('routes call only their own domain', () => {
    const problems = files.map((file) => routeCallsOtherDomain(posix(relative(serverDir, file)), texts.get(file) ?? '')).filter(Boolean);
    expect(problems).toEqual([]);
  });

  it('every known exception still exists (remove it when its import goes)', () => {
    const stale = KNOWN_EXCEPTIONS.filter((known) => !edges.some((edge) => edge.from === known.from && edge.to === known.to));
    expect(stale).toEqual([]);
  });
});
