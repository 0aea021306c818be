// Without a terminal nothing may wait for input. Every command of the oclif manifest (so a command
// added later is covered too) is run from the built binary with stdin at /dev/null and CI unset,
// and with stdin an open pipe nobody writes to and CI set:
// - without its required flags and arguments: exit 2 at once, stderr naming what is missing (the
//   missing arguments, or with the arguments given, every missing flag);
// - commands with nothing required: they must end on their own quickly (whatever their answer),
//   never showing a prompt; the few that serve until stopped must keep running on a closed stdin
//   and stop on Ctrl-C.

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, REPO } from '../commands/cli-harness.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** A run that takes longer than this is taken to be waiting (for input or anything else). */
const LIMIT_MS = Number(process.env.PAYCTL_NO_TTY_LIMIT_MS ?? 10_000);
const PARALLEL = 3;

/** Commands that serve until stopped, with what keeps them off fixed ports. */
const LONG_RUNNING: Readonly<Record<string, readonly string[]>> = {
  serve: ['--port', '0'],
  'webhooks:listen': [],
};

/** Argument values that pass an argument's own parsing, where any text would not. */
const VALID_ARGS: Readonly<Record<string, string>> = { method: 'GET' };

interface ManifestEntry {
  id: string;
  flags: Record<string, { name: string; type: string; required?: boolean; options?: string[]; char?: string }>;
  args: Record<string, { name: string; required?: boolean; options?: string[] }>;
}

/** /dev/null, an open pipe that never gets a byte, or a pipe closed at once. */
type Stdin = 'devnull' | 'open' | 'closed';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
  /** Still running at the limit (then stopped with SIGINT, and SIGKILL if that did not do). */
  timedOut: boolean;
  /** How long it took to stop after SIGINT, when it had to be stopped. */
  stopMs?: number;
}

let t: TestServer;
let dir: string;
let manifest: ManifestEntry[];
const timings: number[] = [];
let runs = 0;

beforeAll(async () => {
  ensureBuilt([]);
  const parsed = JSON.parse(readFileSync(join(REPO, 'oclif.manifest.json'), 'utf8')) as { commands: Record<string, ManifestEntry> };
  manifest = Object.values(parsed.commands).sort((a, b) => a.id.localeCompare(b.id));
  t = await startTestServer({ memory: true });
  dir = mkdtempSync(join(tmpdir(), 'payctl-no-tty-'));
}, 120_000);

afterAll(async () => {
  await t?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  if (timings.length > 0) {
    const sorted = [...timings].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)];
    console.log(`[reliability] no terminal: ${manifest.length} commands, ${runs} runs, exit times median ${median} ms, max ${sorted.at(-1)} ms (limit ${LIMIT_MS} ms)`);
  }
});

/** A run's own config and data directories (serve keeps its database in the data directory). */
function isolated(name: string): Record<string, string> {
  return { PAYCTL_CONFIG_DIR: join(dir, name, 'config'), PAYCTL_DATA_DIR: join(dir, name, 'data'), XDG_DATA_HOME: join(dir, name, 'xdg') };
}

function withServer(name: string): Record<string, string> {
  const creds = t.server.defaultCredentials;
  return {
    ...isolated(name),
    PAYCTL_BASE_URL: t.url,
    PAYCTL_CLIENT_ID: creds.client_id,
    PAYCTL_CLIENT_SECRET: creds.client_secret,
  };
}

function payctl(args: readonly string[], env: Record<string, string>, stdin: Stdin, ci: boolean, longRunning = false, nodeArgs: readonly string[] = []): Promise<Run> {
  const childEnv: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith('PAYCTL_') && key !== 'FORCE_COLOR' && key !== 'CI') childEnv[key] = value;
  }
  Object.assign(childEnv, { NO_COLOR: '1' }, ci ? { CI: '1' } : {}, env);
  runs += 1;
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, join(REPO, 'bin/run.js'), ...args], {
      cwd: REPO,
      env: childEnv,
      stdio: [stdin === 'devnull' ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (stdin === 'closed') child.stdin?.end();
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    let stopAsked = 0;
    // A server is stopped once it answers a request at the address it printed: then it is running
    // past the end of its stdin (which, read from the start, came before the request was read).
    let probed = false;
    const probe = () => {
      const url = longRunning && !probed ? /http:\/\/127\.0\.0\.1:\d+/.exec(stdout + stderr)?.[0] : undefined;
      if (!url) return;
      probed = true;
      void fetch(`${url}/`, { signal: AbortSignal.timeout(5_000) }).then(stop, () => undefined);
    };
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      probe();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      probe();
    });
    const stop = () => {
      if (child.exitCode !== null || stopAsked) return;
      timedOut = true;
      stopAsked = Date.now();
      child.kill('SIGINT');
      setTimeout(() => child.kill('SIGKILL'), 5_000);
    };
    const limit = setTimeout(stop, LIMIT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(limit);
      const ms = Date.now() - started;
      if (!timedOut) timings.push(ms);
      resolve({ code, stdout, stderr, ms, timedOut, ...(stopAsked ? { stopMs: Date.now() - stopAsked } : {}) });
    });
  });
}

/** Runs the jobs a few at a time (each is a process on a shared two-core machine). */
async function inParallel<T>(jobs: Array<() => Promise<T>>): Promise<T[]> {
  const results: T[] = new Array(jobs.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      while (next < jobs.length) {
        const index = next++;
        results[index] = await (jobs[index] as () => Promise<T>)();
      }
    }),
  );
  return results;
}

const PROMPT = /^\? /m;
const requiredFlags = (c: ManifestEntry) => Object.values(c.flags).filter((flag) => flag.required);
const requiredArgs = (c: ManifestEntry) => Object.values(c.args).filter((arg) => arg.required);
const argsInOrder = (c: ManifestEntry) => Object.values(c.args);

/** stderr names a missing flag or argument the way the CLI reports it. */
function namesMissing(stderr: string, kind: 'flag' | 'arg', name: string): boolean {
  if (kind === 'flag') return new RegExp(`Missing required flag:? ${name}\\b|--${name}\\b`, 'm').test(stderr);
  return /Missing \d+ required args?/.test(stderr) && new RegExp(`^${name}\\s`, 'm').test(stderr);
}

function describeRun(label: string, run: Run): string {
  return `${label}: exit ${run.code} after ${run.ms} ms${run.timedOut ? ' (had to be stopped)' : ''}\nstdout: ${run.stdout.slice(0, 500)}\nstderr: ${run.stderr.slice(0, 800)}`;
}

/** The command line with the required arguments given (dummies) or not, and no flags. */
function argv(c: ManifestEntry, withArgs: boolean): string[] {
  const given = withArgs ? requiredArgs(c).map((arg) => VALID_ARGS[arg.name] ?? arg.options?.[0] ?? 'X1') : [];
  return [...c.id.split(':'), ...given];
}

describe('no terminal, no required values', () => {
  it('the manifest lists the commands', () => {
    expect(manifest.length).toBeGreaterThan(40);
    expect(manifest.map((c) => c.id)).toEqual(expect.arrayContaining(['payments:refund', 'payouts:create', 'auth:status']));
  });

  it('every command with required flags or arguments exits 2 at once, naming what is missing', async () => {
    const commands = manifest.filter((c) => requiredFlags(c).length + requiredArgs(c).length > 0);
    const jobs: Array<() => Promise<string | undefined>> = [];
    const check = (c: ManifestEntry, withArgs: boolean, stdin: Stdin, ci: boolean) => async () => {
      // oclif reports missing arguments first; once they are given, every missing flag at once.
      const missing =
        requiredArgs(c).length > 0 && !withArgs
          ? requiredArgs(c).map((a) => ({ kind: 'arg' as const, name: a.name }))
          : requiredFlags(c).map((f) => ({ kind: 'flag' as const, name: f.name }));
      const label = `${c.id} ${withArgs ? 'with its arguments but no flags' : 'with nothing'} (stdin ${stdin}, CI ${ci ? 'set' : 'unset'})`;
      const run = await payctl(argv(c, withArgs), withServer(`req-${c.id}-${stdin}-${String(withArgs)}`), stdin, ci);
      if (run.timedOut || run.code !== 2) return describeRun(label, run);
      const unnamed = missing.filter((m) => !namesMissing(run.stderr, m.kind, m.name));
      if (unnamed.length > 0) return describeRun(`${label} does not name ${unnamed.map((m) => `${m.kind} ${m.name}`).join(', ')}`, run);
      if (PROMPT.test(run.stdout) || PROMPT.test(run.stderr)) return describeRun(`${label} showed a prompt`, run);
      return undefined;
    };
    for (const c of commands) {
      jobs.push(check(c, false, 'devnull', false), check(c, false, 'open', true));
      if (requiredArgs(c).length > 0 && requiredFlags(c).length > 0) jobs.push(check(c, true, 'open', false));
    }
    const failures = (await inParallel(jobs)).filter((failure): failure is string => failure !== undefined);
    expect(failures, failures.join('\n\n')).toEqual([]);
    console.log(`[reliability] no terminal: ${commands.length} commands with required values, ${jobs.length} runs, all exit 2 naming what is missing`);
  });

  it('an argument its own parsing refuses is a usage error too (exit 2, not 1)', async () => {
    const run = await payctl(['api', 'FETCH', '/v1/x'], withServer('api-method'), 'open', false);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/"FETCH" is not one of GET/);
  });

  it('every command with nothing required ends on its own without prompting (servers stop on Ctrl-C)', async () => {
    const commands = manifest.filter((c) => requiredFlags(c).length + requiredArgs(c).length === 0);
    const jobs: Array<() => Promise<string | undefined>> = [];
    const codes = new Map<string, string>();
    for (const c of commands) {
      const long = LONG_RUNNING[c.id];
      const variants: Array<[Stdin, boolean, 'server' | 'no-config']> = [
        ['devnull', false, 'server'],
        ['closed', true, 'no-config'],
      ];
      for (const [stdin, ci, setup] of variants) {
        jobs.push(async () => {
          const label = `${c.id} (stdin ${stdin}, CI ${ci ? 'set' : 'unset'}, ${setup === 'server' ? 'credentials for a server' : 'no configuration at all'})`;
          const env = setup === 'server' ? withServer(`free-${c.id}-${stdin}`) : isolated(`empty-${c.id}`);
          const run = await payctl([...c.id.split(':'), ...(long ?? [])], env, stdin, ci, long !== undefined);
          if (PROMPT.test(run.stdout) || PROMPT.test(run.stderr)) return describeRun(`${label} showed a prompt`, run);
          if (long !== undefined) {
            // A server: it must have been running (not ended by the closed stdin) and stop on Ctrl-C.
            if (!run.timedOut && run.code !== 2) return describeRun(`${label} ended by itself`, run);
            if (run.timedOut && (run.stopMs === undefined || run.stopMs > 5_000 || ![0, 130].includes(run.code ?? -1))) {
              return describeRun(`${label} did not stop on Ctrl-C`, run);
            }
            codes.set(label, run.timedOut ? 'served until Ctrl-C' : `exit ${run.code}`);
            return undefined;
          }
          if (run.timedOut) return describeRun(`${label} did not end within ${LIMIT_MS} ms (waiting?)`, run);
          // Whatever the answer, a failure is a usage error naming what to pass, or a reported error.
          if (run.code === 2 && run.stderr.trim() === '') return describeRun(`${label} exit 2 without saying why`, run);
          codes.set(label, `exit ${run.code}`);
          return undefined;
        });
      }
    }
    const failures = (await inParallel(jobs)).filter((failure): failure is string => failure !== undefined);
    expect(failures, failures.join('\n\n')).toEqual([]);
    // The control: a serve that starts reading its stdin once it has printed its address, and ends at
    // that stdin's end, is seen by the same wait to end by itself (not stopped by Ctrl-C).
    const preload = join(dir, 'exit-at-stdin-end.cjs');
    writeFileSync(
      preload,
      [
        'const write = process.stdout.write;',
        'process.stdout.write = function (chunk, ...rest) {',
        '  if (String(chunk).includes("http://127.0.0.1:")) { process.stdin.on("end", () => process.exit(3)); process.stdin.resume(); }',
        '  return write.call(this, chunk, ...rest);',
        '};',
      ].join('\n'),
    );
    const control = await payctl(['serve', '--port', '0'], isolated('control-serve'), 'closed', true, true, ['--require', preload]);
    expect(control.timedOut, describeRun('the control', control)).toBe(false);
    expect(control.code, describeRun('the control', control)).toBe(3);
    console.log(`[reliability] no terminal: ${commands.length} commands with nothing required, ${jobs.length} runs:\n  ${[...codes].map(([label, code]) => `${label}: ${code}`).join('\n  ')}`);
  });
});
