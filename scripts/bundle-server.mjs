// Bundles the compiled server (dist/server) into one ESM file, dist/server-bundle.js.
// Loading ~600 small ESM/CJS files (Kysely alone is hundreds) costs about three times as long as
// one file, and `payctl serve` start-up is measured. better-sqlite3 stays external (native addon).
import { build } from 'esbuild';

await build({
  entryPoints: ['dist/server/index.js'],
  outfile: 'dist/server-bundle.js',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['better-sqlite3'],
  sourcemap: true,
  logLevel: 'warning',
  // CommonJS dependencies bundled into ESM still call require() for Node built-ins.
  banner: { js: "import { createRequire as payctlCreateRequire } from 'node:module'; const require = payctlCreateRequire(import.meta.url);" },
});
