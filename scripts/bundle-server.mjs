// Bundles the compiled server (dist/server) for `payctl serve`: the entry dist/server-bundle.js and
// the chunks it loads on demand (dist/server-chunks/). Loading ~600 small ESM/CJS files (Kysely
// alone is hundreds) costs about three times as long as one file, and start-up is measured.
// - Code splitting: modules imported with import() (undici, for webhook deliveries) become chunks
//   read only when first used.
// - Whitespace and comments stripped: a few non-Latin-1 characters in dependencies' comments made
//   V8 hold the whole 4.5 MB source as two-byte text (9.2 MB of heap); stripped, the source is
//   3.1 MB of one-byte text (3.5 MB). Names are kept and the source map maps stack traces back.
// Chunk names carry a content hash. After a build, chunks of neither this build nor the one before
// are deleted: a server started before a rebuild may still load its chunk later.
// better-sqlite3 stays external (native addon).
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';

const CHUNKS = 'dist/server-chunks';
const RECORD = join(CHUNKS, '.builds.json');

const result = await build({
  entryPoints: { 'server-bundle': 'dist/server/index.js' },
  outdir: 'dist',
  chunkNames: 'server-chunks/[name]-[hash]',
  splitting: true,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['better-sqlite3'],
  minifyWhitespace: true,
  sourcemap: true,
  logLevel: 'warning',
  metafile: true,
  // CommonJS dependencies bundled into ESM still call require() for Node built-ins.
  banner: { js: "import { createRequire as payctlCreateRequire } from 'node:module'; const require = payctlCreateRequire(import.meta.url);" },
});

const written = Object.keys(result.metafile.outputs).map((path) => resolve(path));
const previous = existsSync(RECORD) ? JSON.parse(readFileSync(RECORD, 'utf8')) : [];
const keep = new Set([...written, ...previous]);
for (const name of existsSync(CHUNKS) ? readdirSync(CHUNKS) : []) {
  const path = resolve(CHUNKS, name);
  if (name !== '.builds.json' && !keep.has(path)) rmSync(path);
}
writeFileSync(RECORD, JSON.stringify(written));
