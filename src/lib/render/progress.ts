// A one-line progress counter on stderr, redrawn in place, for a person watching a long run. Only
// on a terminal (stdout and stderr) and never with --json: a pipe or a script gets none of it.

const REDRAW_MS = 100;

export class ProgressLine {
  #shown = false;
  #lastDraw = 0;

  constructor(private readonly enabled: boolean) {}

  /** Whether a person is watching: stdout and stderr are terminals and the output is not JSON. */
  static wanted(json: boolean): boolean {
    return !json && Boolean(process.stdout.isTTY) && Boolean(process.stderr.isTTY);
  }

  /** Redraws at most every 100 ms, except with `force` (the first and the last state). */
  update(text: string, force = false): void {
    if (!this.enabled) return;
    const now = Date.now();
    if (!force && this.#shown && now - this.#lastDraw < REDRAW_MS) return;
    this.#lastDraw = now;
    this.#shown = true;
    process.stderr.write(`\r\u001b[2K${text}`);
  }

  /** Ends the line so that what follows starts on a line of its own. */
  done(): void {
    if (this.#shown) process.stderr.write('\n');
    this.#shown = false;
  }
}
