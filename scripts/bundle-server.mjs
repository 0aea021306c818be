// Bundles the compiled server (dist/server) for `payctl serve` into one CommonJS file,
// dist/server-bundle.cjs, and makes its V8 code cache (dist/server-bundle.cjs.<hash>.<V8 tag>.v8cache).
// Loading ~600 small ESM/CJS files (Kysely alone is hundreds) costs about three times as long as
// one file, and start-up is measured.
// - CommonJS, so that src/lib/code-cache.ts can evaluate it through vm.Script with V8's code cache
//   (Node 20 has no compile cache for modules): the cache is made here, by starting the bundled
//   server on :memory: and answering a few requests, so it also holds the functions compiled then.
// - undici (webhook deliveries) is a file of its own, dist/server-chunks/undici-<hash>.cjs,
//   required with the first delivery.
// - Whitespace and comments stripped: a few non-Latin-1 characters in dependencies' comments made
//   V8 hold the whole 4.5 MB source as two-byte text (9.2 MB of heap); stripped, the source is
//   3.1 MB of one-byte text (3.5 MB). Names are kept and the source map maps stack traces back.
// - Left out, as never evaluated by the server: Fastify's JSON-schema compilers (ajv, fast-json-stringify
//   and what they use, ~420 KB) are required only when no compilers are passed, and the app passes its
//   own (src/server/app.ts); they stay plain requires, resolved from node_modules should that change
//   (with npm's flat node_modules; a strict layout such as pnpm's would not find fastify's own
//   dependencies from dist/: test/lib/code-cache.test.ts checks that they are never loaded).
//   zod's locale index (~300 KB, ~50 modules evaluated at load) is reachable only as z.locales, which
//   the server never uses: the bundle's z.locales holds English alone (zod itself imports en.js for its
//   default messages). The source read, hashed and decoded on every start shrank from 2.4 to 1.7 MB.
// - Fastify's server.js requires node:https and node:http2 at load, which bring in TLS: ~10 ms of
//   every start (measured in-process, uncached: https 4.2 ms, http2 5.7 ms) for servers payctl never
//   makes. In the bundle each is required on first use instead (the build fails if those lines change).
// - find-my-way (Fastify's router) compiles each static path segment's matcher with new Function:
//   ~150 of them at every start, code V8's cache cannot keep. In the bundle the matcher is a closure
//   doing the same comparison with String#startsWith (as find-my-way already does for long segments).
// - better-sqlite3's JavaScript is bundled (its 13 files cost 6-10 ms to resolve and compile at every
//   start); the native addon stays a file of its own, opened by path (src/server/db/connection.ts).
// It also writes dist/schema-template.db (scripts/schema-template.mjs), the file a new database starts as.
// After a build, chunks of neither this build nor the one before are deleted: a server started
// before a rebuild may still load its chunk later.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { build } from 'esbuild';

const CHUNKS = 'dist/server-chunks';
const RECORD = join(CHUNKS, '.builds.json');
const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  minifyWhitespace: true,
  sourcemap: true,
  logLevel: 'warning',
  metafile: true,
  outExtension: { '.js': '.cjs' },
};

/**
 * An esbuild plugin that edits one dependency file as it is bundled: each [text, replacement] must
 * be found as written, or the build fails (a dependency update must be looked at, never patched blind).
 */
function sourceEdit({ name, file, edits, append = '' }) {
  return {
    name,
    setup(context) {
      context.onLoad({ filter: file }, (args) => {
        let contents = readFileSync(args.path, 'utf8');
        for (const [text, replacement] of edits) {
          if (!contents.includes(text)) throw new Error(`${name}: ${args.path} no longer has the text this build edits:\n${text}`);
          contents = contents.replace(text, replacement);
        }
        return { contents: contents + append, loader: 'js' };
      });
    },
  };
}

const undici = await build({ ...common, entryPoints: { undici: 'undici' }, outdir: CHUNKS, entryNames: '[name]-[hash]' });
const undiciFile = Object.keys(undici.metafile.outputs).find((path) => path.endsWith('.cjs'));
// pg (PostgreSQL storage) likewise: required only by a server started on a postgres:// URL, so a
// SQLite server's bundle neither reads nor compiles it. pg-native is pg's optional native binding,
// never installed by payctl (pg requires it only when asked for pg.native).
const pgChunk = await build({ ...common, entryPoints: { pg: 'pg' }, outdir: CHUNKS, entryNames: '[name]-[hash]', external: ['pg-native'] });
const pgFile = Object.keys(pgChunk.metafile.outputs).find((path) => path.endsWith('.cjs'));

const server = await build({
  ...common,
  entryPoints: { 'server-bundle': 'dist/server/index.js' },
  outdir: 'dist',
  external: ['@fastify/ajv-compiler', '@fastify/fast-json-stringify-compiler'],
  // CommonJS has no import.meta: its one use (connection.ts, createRequire, which takes a path as
  // well as a URL) gets the bundle's own path.
  define: { 'import.meta.url': '__filename' },
  // import('undici') becomes a require() of the chunk, resolved from the bundle's own directory.
  supported: { 'dynamic-import': false },
  plugins: [
    {
      name: 'undici-chunk',
      setup(context) {
        context.onResolve({ filter: /^undici$/ }, () => ({ path: `./server-chunks/${basename(undiciFile)}`, external: true }));
      },
    },
    {
      name: 'pg-chunk',
      setup(context) {
        context.onResolve({ filter: /^pg$/ }, () => ({ path: `./server-chunks/${basename(pgFile)}`, external: true }));
      },
    },
    sourceEdit({
      name: 'fastify-tls-on-first-use',
      file: /[\\/]node_modules[\\/]fastify[\\/]lib[\\/]server\.js$/,
      edits: ['https', 'http2'].map((name) => [`const ${name} = require('node:${name}')\n`, `const ${name} = requiredOnFirstUse('node:${name}')\n`]),
      // Every property read (https.createServer, ...) requires the module then: Node caches it.
      append: '\nfunction requiredOnFirstUse (id) { return new Proxy({}, { get: (_, key) => require(id)[key] }) }\n',
    }),
    sourceEdit({
      name: 'find-my-way-prefix-without-eval',
      file: /[\\/]node_modules[\\/]find-my-way[\\/]lib[\\/]node\.js$/,
      edits: [
        [
          [
            '  const lines = []',
            '  for (let i = 1; i < prefix.length; i++) {',
            '    const charCode = prefix.charCodeAt(i)',
            '    lines.push(`path.charCodeAt(i + ${i}) === ${charCode}`)',
            '  }',
            "  return new Function('path', 'i', `'use strict'\\nreturn ${lines.join(' && ')}`) // eslint-disable-line",
          ].join('\n'),
          // The same test, chars 1.. of the prefix at path[i + 1..] (char 0 was matched by the caller).
          ['  const rest = prefix.slice(1)', '  return function matchPrefix (path, i) { return path.startsWith(rest, i + 1) }'].join('\n'),
        ],
      ],
    }),
    {
      name: 'zod-english-only',
      setup(context) {
        context.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
          /[\\/]zod[\\/]v4[\\/](classic|core)[\\/]/.test(args.importer)
            ? { path: 'zod-locales', namespace: 'zod-english-only', pluginData: { localesDir: resolve(dirname(args.importer), '../locales') } }
            : undefined,
        );
        // English from the importing zod's own locales (not whichever zod the build's directory finds).
        context.onLoad({ filter: /.*/, namespace: 'zod-english-only' }, (args) => ({
          contents: "export { default as en } from './en.js';",
          resolveDir: args.pluginData.localesDir,
        }));
      },
    },
  ],
});

const written = [...Object.keys(undici.metafile.outputs), ...Object.keys(pgChunk.metafile.outputs), ...Object.keys(server.metafile.outputs)].map((path) => resolve(path));
const previous = existsSync(RECORD) ? JSON.parse(readFileSync(RECORD, 'utf8')) : [];
const keep = new Set([...written, ...previous]);
for (const name of existsSync(CHUNKS) ? readdirSync(CHUNKS) : []) {
  const path = resolve(CHUNKS, name);
  if (name !== '.builds.json' && !keep.has(path)) rmSync(path);
}
writeFileSync(RECORD, JSON.stringify(written));
for (const stale of ['dist/server-bundle.js', 'dist/server-bundle.js.map']) rmSync(stale, { force: true });

// Caches of earlier bundles (named by their source's hash, never used again) and writes cut short.
for (const name of readdirSync('dist')) if (/^server-bundle\.cjs\.[0-9a-f.]+\.v8cache(?:\.\d+\.[0-9a-f]+\.tmp)?$/.test(name)) rmSync(join('dist', name));
// Made in a separate process started with no flags, as `payctl serve` runs: V8 refuses a cache made
// under other V8 flags (a run with other flags makes its own the first time, see src/lib/code-cache.ts).
execFileSync(process.execPath, ['scripts/warm-code-cache.mjs', 'dist/server-bundle.cjs'], { stdio: 'inherit' });
execFileSync(process.execPath, ['scripts/schema-template.mjs', 'dist/server-bundle.cjs', 'dist/schema-template.db'], { stdio: 'inherit' });
