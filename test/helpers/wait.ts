// Waiting in tests: on a condition, polled, with a deadline and a message that says what never came.
// The one place tests wait for something they cannot get an event for (a row another server writes,
// a request at a receiver, a file another process fills). A fixed sleep is never a substitute.

export interface WaitOptions {
  /** Give up after this long (default 5 s). */
  timeoutMs?: number;
  /** What was awaited, for the failure message; a function is called at the deadline (for the last value seen). */
  what?: string | (() => string);
  /** Time between two checks (default 15 ms). */
  intervalMs?: number;
}

/** Resolves as soon as `check` returns true; throws `timed out after N ms waiting for <what>` otherwise. */
export async function waitFor(check: () => boolean | Promise<boolean>, options: WaitOptions = {}): Promise<void> {
  const { timeoutMs = 5_000, intervalMs = 15 } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() >= deadline) break;
    await new Promise((resolve) => setTimeout(resolve, Math.min(intervalMs, Math.max(1, deadline - Date.now()))));
  }
  const what = typeof options.what === 'function' ? options.what() : (options.what ?? 'a condition');
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}
