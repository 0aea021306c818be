// What bin/run.js loads for `payctl serve ...` before oclif: when the flags read plainly
// (serve-flags.ts), the server starts with no oclif runtime, configuration or command lookup loaded.
// Otherwise it reports false and oclif takes the command line (--help, errors, anything unusual).

import { fileURLToPath } from 'node:url';
import { runServe } from './lib/serve.js';
import { parseServeArgs } from './lib/serve-flags.js';

/** Runs `payctl serve <argv>` and sets the exit code; false (nothing done) when oclif must read the line. */
export async function serveDirect(argv: readonly string[], root: URL): Promise<boolean> {
  const flags = parseServeArgs(argv, process.env);
  if (flags === null) return false;
  // As oclif does for every command: a reader that went away (`payctl serve | head -1`) must not
  // stop the server with an unhandled EPIPE when it prints its banner.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
  try {
    process.exitCode = await runServe(flags, fileURLToPath(root));
  } catch (error) {
    // What oclif would do with an error a command throws: its message, no stack trace, exit 1.
    process.stderr.write(`payctl serve: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
  return true;
}
