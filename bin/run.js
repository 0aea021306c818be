#!/usr/bin/env node
// oclif's runtime and the root help, bundled into one file (scripts/bundle-cli.mjs); each command
// is a bundled file of its own that oclif imports when it runs.
import { setFlagsFromString } from 'node:v8';
import { execute } from '../dist/bundle/main.js';

// HTTP goes through Node's fetch, whose parser is WebAssembly. V8 recompiles its hot functions with
// the optimizing compiler on background threads, and the process cannot exit before they finish:
// ~80 ms after the last answer, for code that parses two small responses. The baseline compiler's
// code is the same code, only less optimized. `serve` (long-running) keeps V8's default.
if (process.argv[2] !== 'serve') setFlagsFromString('--liftoff-only');

await execute({ dir: import.meta.url });
