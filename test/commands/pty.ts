// Runs the built `bin/run.js` on a pseudo-terminal of a chosen width, through util-linux `script`:
// stdin, stdout and stderr are all the terminal, as for a person; the test reads what the screen
// got and types answers once a prompt shows.

import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { REPO } from './cli-harness.js';

export interface PtyRun {
  /** Everything the terminal showed so far: stdout and stderr together, colours removed, \r\n as \n. */
  screen(): string;
  /** Resolves when the screen matches. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** Types text (e.g. "y\r", or "\r" to accept the default). */
  type(text: string): void;
  interrupt(): void;
  /** The exit code of payctl (script -e passes it on) and the final screen. */
  done: Promise<{ code: number | null; screen: string }>;
}

export interface PtyOptions {
  env?: Record<string, string | undefined>;
  columns?: number;
  rows?: number;
  timeoutMs?: number;
}

const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

export function stripAnsi(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;?]*[A-Za-z]|\u001b\][^\u0007]*\u0007/g, '');
}

export function runInPty(args: readonly string[], options: PtyOptions = {}): PtyRun {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith('PAYCTL_') && !['CI', 'FORCE_COLOR', 'NO_COLOR', 'COLUMNS', 'LINES'].includes(key)) env[key] = value;
  }
  env.TERM = 'xterm-256color';
  for (const [key, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  const command = [
    `stty cols ${options.columns ?? 80} rows ${options.rows ?? 50}`,
    `exec ${[process.execPath, join(REPO, 'bin/run.js'), ...args].map(quote).join(' ')}`,
  ].join('; ');
  const child = spawn('script', ['-q', '-e', '-f', '-c', command, '/dev/null'], { cwd: REPO, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let raw = '';
  const watchers = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    raw += chunk.toString('utf8');
    for (const watcher of watchers) watcher();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const screen = () => stripAnsi(raw).replace(/\r\n/g, '\n');
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
  let exited = false;
  const done = new Promise<{ code: number | null; screen: string }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      exited = true;
      for (const watcher of watchers) watcher();
      resolve({ code, screen: screen() });
    });
  });
  return {
    screen,
    waitFor(pattern, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (pattern.test(screen())) {
            cleanup();
            resolve();
          } else if (exited) {
            cleanup();
            reject(new Error(`exited before ${pattern} showed; screen:\n${screen()}`));
          }
        };
        const limit = setTimeout(() => {
          cleanup();
          reject(new Error(`${pattern} did not show in ${timeoutMs} ms; screen:\n${screen()}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(limit);
          watchers.delete(check);
        };
        watchers.add(check);
        check();
      });
    },
    type(text) {
      child.stdin.write(text);
    },
    interrupt() {
      // The terminal's Ctrl+C: the line discipline sends SIGINT to payctl's process group.
      child.stdin.write('\u0003');
    },
    done,
  };
}
