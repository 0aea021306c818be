#!/usr/bin/env node
// oclif's runtime and the root help, bundled into one file (scripts/bundle-cli.mjs); each command
// is a bundled file of its own that oclif imports when it runs.
const { execute } = await import('../dist/bundle/main.js');
await execute({ dir: import.meta.url });
