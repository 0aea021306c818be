// Bundles the CLI into dist/bundle: main.js (oclif's runtime and the root help, what bin/run.js
// loads), serve-direct.cjs (`payctl serve` without oclif) and one entry per command under commands/,
// sharing chunks/. Loading @oclif/core and the
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
// config.js: the profile writer serve-direct.cjs imports when it saves the "local" profile.
// scenario-seed.js: what `payctl serve --seed` imports, the same way.
const entryPoints = { main: 'dist/cli-main.js', config: 'dist/lib/config.js', 'scenario-seed': 'dist/lib/scenario-seed.js' };
// The oclif hooks package.json names (oclif.hooks) load the same way, from dist/bundle/hooks/.
for (const source of [...listFiles('src/commands'), ...listFiles('src/hooks')].filter((path) => path.endsWith('.ts') && !path.endsWith('.d.ts'))) {
  const name = relative('src', source).replace(/\.ts$/, '');
  entryPoints[name] = join('dist', `${name}.js`);
}

// conf validates a store against a JSON schema with ajv (and ajv-formats) only when it is given one;
// payctl's store is checked with zod (src/lib/config.ts) and passes none. Its static imports still
// evaluated ajv's ~100 modules on every command that reads a profile: in the bundle they are
// replaced by stand-ins that refuse loudly if conf ever reaches for them.
const confWithoutAjv = {
  name: 'conf-without-ajv',
  setup(context) {
    context.onResolve({ filter: /^ajv(?:-formats)?(?:\/|$)/ }, (args) =>
      /[\\/]node_modules[\\/]conf[\\/]/.test(args.importer) ? { path: args.path, namespace: 'conf-without-ajv' } : undefined,
    );
    context.onLoad({ filter: /.*/, namespace: 'conf-without-ajv' }, (args) => ({
      contents: [
        `const refuse = () => { throw new Error('payctl is bundled without ${args.path}: conf was given a schema'); };`,
        'export class Ajv2020 { constructor() { refuse(); } }',
        'export default refuse;',
      ].join('\n'),
    }));
  },
};

// What both builds below share.
const common = {
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
};

const result = await build({
  ...common,
  entryPoints,
  plugins: [confWithoutAjv],
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

// `payctl serve ...` before oclif: one CommonJS file that bin/run.js require()s. As an ES module with
// its two chunks it was ~9 ms slower to load (paired launches, median): every ESM import of a Node
// built-in (crypto, fs, vm, ...) builds a facade module of all its exports. Its one dynamic import,
// the profile writer (conf, zod), stays an ES module: dist/bundle/config.js, an entry above.
const serveDirect = await build({
  ...common,
  entryPoints: { 'serve-direct': 'dist/serve-direct.js' },
  outExtension: { '.js': '.cjs' },
  format: 'cjs',
  external: ['better-sqlite3'],
  plugins: [
    {
      name: 'profile-writer-from-the-esm-bundle',
      setup(context) {
        // Only serve.ts's import: another module's './config.js' must not be sent to this entry.
        context.onResolve({ filter: /^\.\/(config|scenario-seed)\.js$/ }, (args) =>
          args.kind === 'dynamic-import' && /[\\/]dist[\\/]lib[\\/]serve\.js$/.test(args.importer) ? { path: args.path, external: true } : undefined,
        );
      },
    },
  ],
});

// Which source modules each output holds and what it imports (statically or not): the bundle test
// reads it to check that main.js and `serve` load none of the other commands' heavy modules.
const meta = { inputs: { ...result.metafile.inputs, ...serveDirect.metafile.inputs }, outputs: { ...result.metafile.outputs, ...serveDirect.metafile.outputs } };
writeFileSync(join(OUT, 'meta.json'), JSON.stringify(meta));

// Chunk names carry a content hash: drop what an earlier build wrote (and a removed command's entry).
// Not before building: a payctl already running keeps finding its files.
const written = new Set([join(OUT, 'meta.json'), ...Object.keys(meta.outputs)].map((path) => resolve(path)));
for (const file of listFiles(OUT)) {
  if (!written.has(resolve(file))) rmSync(file);
}
