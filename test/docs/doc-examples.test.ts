// The doc test: every shell example in README.md and docs/*.md runs, as written, against a real
// `payctl serve`, so a documented command that fails, fails CI.
//
// How an example runs (what a writer can rely on):
// - Each doc file gets a fresh setting, like a new user: an empty HOME (so the default data and
//   config directories are under it), the built CLI on the PATH as `payctl` (a symlink to
//   bin/run.js, what `npm link` makes), and `payctl serve --port 0` already running in the
//   background as if started in another terminal; it wrote the "local" profile, so `payctl ...`
//   needs no login. Its admin key is where serve keeps it: ~/.local/share/payctl/payctl.db.credentials.json.
// - The blocks of a file run in order, each with `bash -eo pipefail` (and inherit_errexit) in one
//   working directory. Variables a block sets are seen by the later blocks of the same file
//   (`CAP=$(payctl ... --json | jq -r .id)`). The working directory holds receipt.pdf,
//   signature.pdf and label.png, files a user would have at hand for evidence.
// - A block passes when it exits 0, or N with ```sh exit=N (then show the refused command last).
//   ```sh no-test marks a block that must not run (npm install, npm link, anything that runs in the
//   foreground until Ctrl-C); every other block must run, and the last test counts them.
// - CI=1 and no terminal: commands never prompt, so money-moving examples need --yes.
// - ```sh postgres marks a block that needs PostgreSQL. With PAYCTL_TEST_PG (a server URL) set, the
//   block gets a database of its own: every POSTGRES_EXAMPLE_URL in it becomes that database's URL,
//   and the database is dropped after the block. Without PAYCTL_TEST_PG the block is skipped and its
//   name says why. Whatever a block leaves running in the background is stopped when it ends.

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { emptyTestDatabase, type TestDatabase } from '../helpers/postgres.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, REPO } from '../commands/cli-harness.js';
import { docFiles, examplesOf, POSTGRES_EXAMPLE_URL, type DocExample, type UnrunBlock } from './doc-examples.js';

const EXAMPLE_TIMEOUT_MS = 180_000;
/** A PostgreSQL server for the ```sh postgres examples (its own database is only used to make others). */
const TEST_PG = process.env.PAYCTL_TEST_PG || undefined;
const NO_PG_REASON = 'skipped: needs PostgreSQL, set PAYCTL_TEST_PG to a server URL';
const README_MAX_LINES = 300;

interface Sandbox {
  root: string;
  work: string;
  env: Record<string, string>;
  serve: ChildProcess;
}

/** The environment of a new user: nothing of ours (PAYCTL_*, XDG_*, the test runner's) leaks in. */
function userEnv(home: string, bin: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value === undefined || /^(PAYCTL_|XDG_|VITEST|npm_)/.test(key) || ['NODE_OPTIONS', 'FORCE_COLOR', 'TEST', 'NODE_ENV'].includes(key)) continue;
    env[key] = value;
  }
  return { ...env, HOME: home, PATH: `${bin}:${dirname(process.execPath)}:${process.env.PATH ?? ''}`, CI: '1', NO_COLOR: '1' };
}

function writeFixtures(work: string): void {
  writeFileSync(join(work, 'receipt.pdf'), '%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');
  writeFileSync(join(work, 'signature.pdf'), '%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');
  writeFileSync(join(work, 'label.png'), Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082', 'hex'));
}

/** Starts `payctl serve --port 0` as the user would in another terminal; resolves once it answers. */
function startServe(env: Record<string, string>, cwd: string): Promise<{ serve: ChildProcess; baseUrl: string }> {
  return new Promise((resolve, reject) => {
    const serve = spawn(process.execPath, [join(REPO, 'bin/run.js'), 'serve', '--port', '0', '--json'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`payctl serve did not start in 60 s: ${err}`)), 60_000);
    serve.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
    serve.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const newline = out.indexOf('\n');
      if (newline < 0) return;
      clearTimeout(timer);
      const summary = JSON.parse(out.slice(0, newline)) as { base_url: string };
      resolve({ serve, baseUrl: summary.base_url });
    });
    serve.on('exit', (code) => reject(new Error(`payctl serve exited ${code}: ${err}`)));
  });
}

async function openSandbox(): Promise<Sandbox> {
  const root = mkdtempSync(join(tmpdir(), 'payctl-docs-'));
  const home = join(root, 'home');
  const bin = join(root, 'bin');
  const work = join(root, 'work');
  for (const dir of [home, bin, work]) mkdirSync(dir);
  symlinkSync(join(REPO, 'bin/run.js'), join(bin, 'payctl'));
  writeFixtures(work);
  writeFileSync(join(root, 'state.sh'), '');
  const env = userEnv(home, bin);
  const { serve } = await startServe(env, work);
  return { root, work, env, serve };
}

async function closeSandbox(sandbox: Sandbox | undefined): Promise<void> {
  if (!sandbox) return;
  const { serve } = sandbox;
  if (serve.exitCode === null && serve.signalCode === null) {
    const exited = new Promise((resolve) => serve.once('exit', resolve));
    serve.kill('SIGTERM');
    await exited;
  }
  rmSync(sandbox.root, { recursive: true, force: true });
}

interface BlockResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A new, empty database on PAYCTL_TEST_PG (text sorted by byte, as payctl expects); its URL and how to drop it. */
const freshDatabase = (): Promise<TestDatabase> => emptyTestDatabase('payctl_docs', TEST_PG);

/** Signals a block's process group (bash and whatever it left in the background); false when none is left. */
function signalGroup(pid: number | undefined, signal: NodeJS.Signals): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Runs one block in bash, with the variables the earlier blocks of its file left. */
async function runBlock(sandbox: Sandbox, example: DocExample, index: number): Promise<BlockResult> {
  if (!example.postgres) return runScript(sandbox, example.script, index);
  const database = await freshDatabase();
  try {
    return await runScript(sandbox, example.script.replaceAll(POSTGRES_EXAMPLE_URL, database.url), index);
  } finally {
    await database.drop();
  }
}

function runScript(sandbox: Sandbox, script: string, index: number): Promise<BlockResult> {
  const blockPath = join(sandbox.root, `block-${index}.sh`);
  writeFileSync(blockPath, `${script}\n`);
  const state = join(sandbox.root, 'state.sh');
  const wrapper = [
    'set -a', // every variable a block sets is exported, so the dump below carries it to the next block
    `. '${state}'`,
    'set -eo pipefail',
    'shopt -s inherit_errexit',
    `trap 'export -p | grep -v "^declare -[a-zA-Z]*r" > '"'${state}'" EXIT`,
    `trap 'echo "doc-test: exit $? from: $BASH_COMMAND" >&2' ERR`,
    `. '${blockPath}'`,
  ].join('\n');
  return new Promise((resolve, reject) => {
    // Its own process group, so that what the block started in the background (a server it did not
    // stop because a command failed) is stopped with it and cannot hold the output pipes open.
    const child = spawn('bash', ['--noprofile', '--norc', '-c', wrapper], { cwd: sandbox.work, env: sandbox.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => signalGroup(child.pid, 'SIGKILL'), EXAMPLE_TIMEOUT_MS - 5_000);
    let leftovers: NodeJS.Timeout | undefined;
    child.on('error', reject);
    child.on('exit', () => {
      if (signalGroup(child.pid, 'SIGTERM')) leftovers = setTimeout(() => signalGroup(child.pid, 'SIGKILL'), 10_000);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      clearTimeout(leftovers);
      resolve({ code, stdout, stderr });
    });
  });
}

const tail = (text: string) => text.split('\n').slice(-25).join('\n');

ensureBuilt([]);
const files = docFiles(REPO);
const unrun: UnrunBlock[] = [];
const examples = new Map(files.map((file) => [file, examplesOf(REPO, file, unrun)] as const));
const ran = new Set<string>();
const keyOf = (example: DocExample) => `${example.file}:${example.line}`;
/** Whether an example runs here: not no-test, and a postgres one only with a server to run on. */
const runs = (example: DocExample) => !example.skip && (!example.postgres || TEST_PG !== undefined);

describe('the docs', () => {
  it('use one command form: `payctl ...` (never npx payctl, never bin/run.js in an example)', () => {
    const inText = files.flatMap((file) =>
      readFileSync(join(REPO, file), 'utf8')
        .split('\n')
        .flatMap((line, i) => (/\bnpx\s+payctl\b/.test(line) ? [`${file}:${i + 1}`] : [])),
    );
    const inExamples = [...examples.values()].flat().filter((example) => /\bbin\/(run|dev)\.js\b/.test(example.script)).map(keyOf);
    expect([...inText, ...inExamples]).toEqual([]);
  });

  it('fence every block of payctl commands as sh (or sh no-test), so that it runs', () => {
    expect(unrun.map((block) => `${block.file}:${block.line}`)).toEqual([]);
  });

  it('write a database URL only in postgres blocks, and there as the placeholder the test replaces', () => {
    const all = [...examples.values()].flat();
    const stray = all.filter((example) => !example.skip && !example.postgres && /postgres(ql)?:\/\//.test(example.script)).map(keyOf);
    const unreplaced = all.filter((example) => example.postgres && !example.script.includes(POSTGRES_EXAMPLE_URL)).map(keyOf);
    expect({ stray, unreplaced }).toEqual({ stray: [], unreplaced: [] });
  });

  it(`keep the README at most ${README_MAX_LINES} lines`, () => {
    expect(readFileSync(join(REPO, 'README.md'), 'utf8').trimEnd().split('\n').length).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it('link only to files that exist', () => {
    const broken: string[] = [];
    for (const file of files) {
      const text = readFileSync(join(REPO, file), 'utf8');
      for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = (match[1] ?? '').split('#')[0] ?? '';
        if (target === '' || /^[a-z]+:/i.test(target)) continue;
        if (!existsSync(join(REPO, dirname(file), target))) broken.push(`${file}: ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });
});

for (const file of files.filter((name) => (examples.get(name) ?? []).length > 0)) {
  describe(file, () => {
    let sandbox: Sandbox | undefined;
    beforeAll(async () => {
      if ((examples.get(file) ?? []).some(runs)) sandbox = await openSandbox();
    }, 90_000);
    afterAll(async () => closeSandbox(sandbox), 60_000);

    (examples.get(file) ?? []).forEach((example, index) => {
      const name = `line ${example.line}${example.expectedExit ? ` (exit ${example.expectedExit})` : ''}: ${example.script.split('\n')[0]?.slice(0, 70) ?? ''}`;
      if (example.skip) {
        it.skip(name, () => undefined);
        return;
      }
      if (!runs(example)) {
        it.skip(`${name} (${NO_PG_REASON})`, () => undefined);
        return;
      }
      it(
        name,
        async () => {
          if (!sandbox) throw new Error('no sandbox');
          const result = await runBlock(sandbox, example, index);
          expect(result.code, `${keyOf(example)} exited ${result.code}\n--- stdout\n${tail(result.stdout)}\n--- stderr\n${tail(result.stderr)}`).toBe(example.expectedExit);
          ran.add(keyOf(example));
        },
        EXAMPLE_TIMEOUT_MS,
      );
    });
  });
}

describe('every example', () => {
  it('that is not marked no-test ran and passed (the postgres ones only with PAYCTL_TEST_PG)', () => {
    const runnable = [...examples.values()].flat().filter(runs).map(keyOf);
    expect(runnable.length).toBeGreaterThan(0);
    expect(runnable.filter((key) => !ran.has(key))).toEqual([]);
  });
});
