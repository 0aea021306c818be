#!/usr/bin/env node
// oclif's runtime and the root help, bundled into one file (scripts/bundle-cli.mjs); each command
// is a bundled file of its own that oclif imports when it runs. A plain `payctl serve ...` starts
// before oclif loads (src/serve-direct.ts): oclif was a third of the time to the server's first answer.
// That path is CommonJS, required without importing node:module here (no ES-module facade built for it).
const served =
  process.argv[2] === 'serve' &&
  process.getBuiltinModule('node:module').createRequire(import.meta.url)('../dist/bundle/serve-direct.cjs').serveDirect(process.argv.slice(3), new URL('..', import.meta.url));
if (!(await served)) {
  const { execute } = await import('../dist/bundle/main.js');
  await execute({ dir: import.meta.url });
}
