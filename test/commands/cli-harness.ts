// Runs the built `bin/run.js` as a user would: a child process with its own env and config dir.

import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = fileURLToPath(new URL('../..', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  elapsedMs: number;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  /** Kill the process after this long (it then reports code null). */
  timeoutMs?: number;
}

/** Runs payctl with only the given PAYCTL_* variables, CI=1 and no colour; stdin stays open. */
export function runCli(args: readonly string[], options: RunOptions = {}): Promise<CliResult> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith('PAYCTL_') && key !== 'FORCE_COLOR') env[key] = value;
  }
  Object.assign(env, { CI: '1', NO_COLOR: '1' });
  for (const [key, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO, 'bin/run.js'), ...args], { cwd: REPO, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, elapsedMs: Date.now() - started });
    });
  });
}

function newestMtime(dir: string, extension: string): Map<string, number> {
  const times = new Map<string, number>();
  const walk = (current: string) => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(extension)) times.set(relative(dir, path).slice(0, -extension.length), statSync(path).mtimeMs);
    }
  };
  if (existsSync(dir)) walk(dir);
  return times;
}

/** Builds dist/ and the oclif manifest when a source file is newer than its output (or a command is missing). */
export function ensureBuilt(commandIds: readonly string[]): void {
  const sources = newestMtime(join(REPO, 'src'), '.ts');
  const outputs = newestMtime(join(REPO, 'dist'), '.js');
  const stale = [...sources].some(([path, mtime]) => !path.endsWith('.d') && (outputs.get(path) ?? 0) < mtime);
  const bin = (name: string) => join(REPO, 'node_modules/.bin', name);
  if (stale) {
    try {
      execFileSync(bin('tsc'), ['-p', 'tsconfig.build.json'], { cwd: REPO, stdio: 'pipe' });
    } catch (error) {
      // tsc still writes JavaScript when some other file fails to typecheck; only a missing entry is fatal.
      if (!existsSync(join(REPO, 'dist/commands/api.js'))) throw error;
    }
  }
  const manifestPath = join(REPO, 'oclif.manifest.json');
  const manifestCommands = existsSync(manifestPath)
    ? Object.keys((JSON.parse(readFileSync(manifestPath, 'utf8')) as { commands: Record<string, unknown> }).commands)
    : [];
  if (stale || commandIds.some((id) => !manifestCommands.includes(id))) {
    execFileSync(bin('oclif'), ['manifest'], { cwd: REPO, stdio: 'pipe' });
  }
}
