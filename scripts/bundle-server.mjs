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
// - better-sqlite3's JavaScript is bundled (its 13 files cost 6-10 ms to resolve and compile at every
//   start); the native addon stays a file of its own, opened by path (src/server/db/connection.ts).
// No dependency's source is edited here: only esbuild's and the packages' public options, so that an
// upgrade of Fastify, zod or find-my-way is no build work (docs/performance.md, Start-up, has the cost).
// It also writes dist/schema-template.db (scripts/schema-template.mjs), the file a new database starts as.
// After a build, chunks of neither this build nor the one before are deleted: a server started
// before a rebuild may still load its chunk later.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
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
