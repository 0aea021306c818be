#!/usr/bin/env -S node --max-semi-space-size=8
// oclif's runtime and the root help, bundled into one file (scripts/bundle-cli.mjs); each command
// is a bundled file of its own that oclif imports when it runs.
//
// The V8 flag on the #! line is for `payctl serve`: under load V8 grows each half of its young
// generation to 16 MB and keeps them; 8 MB gave the same throughput and 17 MB less RSS (npm run
// bench). Commands run as `node bin/run.js ...` work the same without it.
import { execute } from '../dist/bundle/main.js';

await execute({ dir: import.meta.url });
