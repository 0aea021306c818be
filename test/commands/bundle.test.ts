// The bundled CLI (scripts/bundle-cli.mjs): every command file is a bundle entry in the manifest, and
// the entries load only their own heavy modules (read from esbuild's metafile, not timed).

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO, ensureBuilt } from './cli-harness.js';

interface Metafile {
  outputs: Record<string, { imports: { path: string; kind: string; external?: boolean }[]; inputs: Record<string, unknown>; exports: string[] }>;
}

interface ManifestCommand {
  relativePath?: string[];
  flags: Record<string, unknown>;
}

function sourceCommandIds(dir = join(REPO, 'src/commands')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceCommandIds(path);
    if (!entry.name.endsWith('.ts') || entry.name.endsWith('.d.ts')) return [];
    return [relative(join(REPO, 'src/commands'), path).replace(/\.ts$/, '').split('/').join(':')];
  });
}

const commandIds = sourceCommandIds().sort();
let meta: Metafile;
let manifest: Record<string, ManifestCommand>;

beforeAll(() => {
  ensureBuilt(commandIds);
  meta = JSON.parse(readFileSync(join(REPO, 'dist/bundle/meta.json'), 'utf8')) as Metafile;
  manifest = (JSON.parse(readFileSync(join(REPO, 'oclif.manifest.json'), 'utf8')) as { commands: Record<string, ManifestCommand> }).commands;
}, 180_000);

/** Packages (and payctl's own dist/ folders) in the files an output loads before it runs: static imports only. */
function staticallyLoaded(entry: string): Set<string> {
  const seen = new Set<string>();
  const pending = [entry.endsWith('.cjs') ? `dist/bundle/${entry}` : `dist/bundle/${entry}.js`];
  for (let output = pending.pop(); output !== undefined; output = pending.pop()) {
    if (seen.has(output)) continue;
    const info = meta.outputs[output];
    if (!info) throw new Error(`no output ${output} in dist/bundle/meta.json`);
    seen.add(output);
    pending.push(...info.imports.filter((i) => i.kind === 'import-statement' && !i.external).map((i) => i.path));
  }
  const sources = new Set<string>();
  for (const output of seen) {
    for (const i of meta.outputs[output]?.imports ?? []) {
      if (i.kind === 'import-statement' && i.external && !i.path.startsWith('node:')) sources.add(i.path);
    }
  }
  for (const output of seen) {
    for (const input of Object.keys(meta.outputs[output]?.inputs ?? {})) {
      const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1];
      sources.add(pkg ?? input.split('/').slice(0, 2).join('/'));
    }
  }
  return sources;
}

describe('bundled commands', () => {
  it('every file under src/commands is a command in the manifest, and nothing else is', () => {
    // A manifest command without a source is a stale dist/commands file: delete it and rebuild.
    expect(Object.keys(manifest).sort()).toEqual(commandIds);
  });

  it('every command runs from its own bundle entry, with its flags in the manifest', () => {
    for (const id of commandIds) {
      const path = `dist/bundle/commands/${id.split(':').join('/')}.js`;
      expect(manifest[id]?.relativePath?.join('/'), id).toBe(path);
      expect(existsSync(join(REPO, path)), path).toBe(true);
      expect(Object.keys(manifest[id]?.flags ?? {}), id).toContain('json');
    }
  });

  it('a remote command loads its own heavy modules (so the checks below can fail)', () => {
    const loaded = staticallyLoaded('commands/payments/get');
    expect([...loaded]).toEqual(expect.arrayContaining(['@oclif/core', 'zod', 'conf', 'dist/lib']));
  });

  it('the entry (--version, --help) loads oclif and the root help, no command and no heavy module', () => {
    const loaded = [...staticallyLoaded('main')];
    expect(loaded).toContain('@oclif/core');
    expect(loaded).toContain('dist/help.js');
    expect(loaded.filter((name) => ['zod', 'conf', 'ajv', 'dist/lib', 'dist/commands'].includes(name))).toEqual([]);
  });

  it('import() of a bundled module gets its named exports (esbuild gives a CommonJS chunk a default only)', () => {
    for (const [output, info] of Object.entries(meta.outputs)) {
      for (const target of info.imports.filter((i) => i.kind === 'dynamic-import' && !i.external)) {
        expect(meta.outputs[target.path]?.exports, `${output} imports ${target.path}`).not.toEqual(['default']);
      }
    }
  });

  it('serve loads none of the other commands\' modules; prompts, undici and the server stay lazy everywhere', () => {
    const serve = [...staticallyLoaded('commands/serve')];
    expect(serve.filter((name) => ['zod', 'conf', 'ajv', 'chalk'].includes(name))).toEqual([]);
    for (const id of commandIds) {
      const loaded = [...staticallyLoaded(`commands/${id.split(':').join('/')}`)];
      expect(loaded.filter((name) => ['@inquirer/prompts', 'undici', 'fastify', 'kysely', 'dist/server'].includes(name)), id).toEqual([]);
    }
  });
});
