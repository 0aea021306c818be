// Waiting for stdout and stderr to reach the reader before the process exits. Writes to a pipe
// that is full are queued inside Node, and process.exit() drops that queue: with a slow reader
// (`| wc -l`, `| less`) a failing command lost most of its output.

/** Resolves once everything written to the stream so far has been handed to the OS (or it failed). */
export function drained(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.destroyed || stream.writableEnded) return Promise.resolve();
  // Writes complete in order: the callback of an empty write runs after every earlier one.
  return new Promise((resolve) => stream.write('', () => resolve()));
}

/** stdout and stderr both drained. */
export async function drainOutput(): Promise<void> {
  await Promise.all([drained(process.stdout), drained(process.stderr)]);
}

/** Exits with the code once the output has drained; a second Ctrl-C does not wait for a stalled reader. */
export function exitAfterDrain(code: number): void {
  process.once('SIGINT', () => process.exit(code));
  void drainOutput().then(() => process.exit(code));
}
