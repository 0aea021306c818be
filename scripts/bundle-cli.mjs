// Bundles the CLI into dist/bundle: main.js (oclif's runtime and the root help, what bin/run.js
// loads) and one entry per command under commands/, sharing chunks/. No dependency's source is
// edited: conf, zod and oclif are bundled as published. Loading @oclif/core and the
// commands' dependencies as hundreds of small files was a quarter of `payctl --version`; one entry
// per command (rather than one file with every command, as oclif's explicit strategy would need)
// keeps each command paying only for its own modules: `serve` loads no zod, conf or tables, and
// dynamic import()s (the server bundle, prompts, undici) stay lazy.
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { build } from 'esbuild';

const OUT = 'dist/bundle';

function listFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? listFiles(path) : [path];
  });
}

// Entries follow src/commands, not dist/commands: tsc never deletes the output of a removed or
// renamed command, which would otherwise come back as a bundled command.
const entryPoints = { main: 'dist/cli-main.js' };
// The oclif hooks package.json names (oclif.hooks) load the same way, from dist/bundle/hooks/.
for (const source of [...listFiles('src/commands'), ...listFiles('src/hooks')].filter((path) => path.endsWith('.ts') && !path.endsWith('.d.ts'))) {
  const name = relative('src', source).replace(/\.ts$/, '');
  entryPoints[name] = join('dist', `${name}.js`);
}

const result = await build({
  entryPoints,
  outdir: OUT,
  bundle: true,
  platform: 'node',
  target: 'node20',
  // Without comments: one non-Latin-1 character in a dependency's comment makes V8 hold a whole chunk
  // as two-byte text. Renaming identifiers as well measured no faster, and names help stack traces.
  minifyWhitespace: true,
  sourcemap: true,
  metafile: true,
  logLevel: 'warning',
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  format: 'esm',
  // better-sqlite3 is a native addon; typescript is only read by oclif in development. undici (two
  // webhooks commands, by import()) is CommonJS: split into a chunk, esbuild would give import() only
  // a default export, and `const { request } = await import('undici')` would get undefined.
  external: ['better-sqlite3', 'typescript', 'undici'],
  // CommonJS dependencies bundled into ESM still call require() for Node built-ins, and oclif reads
  // __dirname (its own package.json).
  banner: {
    js: [
      "import { createRequire as payctlCreateRequire } from 'node:module';",
      "import { fileURLToPath as payctlFileURLToPath } from 'node:url';",
      'const require = payctlCreateRequire(import.meta.url);',
      'const __filename = payctlFileURLToPath(import.meta.url);',
      "const __dirname = payctlFileURLToPath(new URL('.', import.meta.url));",
    ].join(' '),
  },
});

// Which source modules each output holds and what it imports (statically or not): the bundle test
// reads it to check that main.js and `serve` load none of the other commands' heavy modules.
const meta = result.metafile;
writeFileSync(join(OUT, 'meta.json'), JSON.stringify(meta));

// Chunk names carry a content hash: drop what an earlier build wrote (and a removed command's entry).
// Not before building: a payctl already running keeps finding its files.
const written = new Set([join(OUT, 'meta.json'), ...Object.keys(meta.outputs)].map((path) => resolve(path)));
for (const file of listFiles(OUT)) {
  if (!written.has(resolve(file))) rmSync(file);
}
