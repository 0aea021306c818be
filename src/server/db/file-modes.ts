// Who may read the server's files: its data folder is 0700 and every database, WAL, shared-memory
// and credentials file 0600, whatever the umask. Other local users must not read merchants' data
// or the key material that signs webhooks.

import { chmodSync, closeSync, fchmodSync, fsyncSync, mkdirSync, openSync, statSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

export const PRIVATE_DIRECTORY_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

const octal = (mode: number): string => `0${(mode & 0o777).toString(8)}`;

/** Makes `directory` (and any missing parents) 0700; a folder that already exists is left as it is. */
export function makePrivateDirectory(directory: string): void {
  const first = mkdirSync(directory, { recursive: true, mode: PRIVATE_DIRECTORY_MODE });
  if (first === undefined) return;
  // mkdir's mode passes through the umask: set it on every folder made here.
  for (let folder = directory; ; folder = dirname(folder)) {
    chmodSync(folder, PRIVATE_DIRECTORY_MODE);
    if (folder === first || dirname(folder) === folder) break;
  }
}

/**
 * Writes `content` to a new file `path` (EEXIST when there is one), 0600 whatever the umask;
 * `sync` flushes it to the disk before it is closed.
 */
export function writeNewPrivateFile(path: string, content: string | Uint8Array, options: { sync?: boolean } = {}): void {
  const fd = openSync(path, 'wx', PRIVATE_FILE_MODE);
  try {
    // open's mode passes through the umask: set it on the descriptor.
    fchmodSync(fd, PRIVATE_FILE_MODE);
    if (typeof content === 'string') writeSync(fd, content);
    else writeSync(fd, content);
    if (options.sync === true) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Creates `path` empty and 0600 when it does not exist (SQLite then gives its WAL and shared memory the same mode). */
export function createPrivateFile(path: string): void {
  try {
    writeNewPrivateFile(path, '');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/**
 * Files among `paths` that other users may read or write: each is made 0600 when `tighten` (files
 * in payctl's own data folder), or left as the operator set it; either way a warning names it.
 */
export function checkPrivateFiles(paths: readonly string[], tighten: boolean): string[] {
  // Windows reports every file 0666 whatever its access list: there is nothing to compare.
  if (process.platform === 'win32') return [];
  const warnings: string[] = [];
  for (const path of paths) {
    let mode: number;
    try {
      mode = statSync(path).mode;
    } catch {
      continue;
    }
    if ((mode & 0o077) === 0) continue;
    if (tighten) {
      chmodSync(path, PRIVATE_FILE_MODE);
      warnings.push(`${path} was readable by other users (mode ${octal(mode)}); it is now ${octal(PRIVATE_FILE_MODE)}`);
    } else {
      warnings.push(`${path} is readable by other users (mode ${octal(mode)}); it holds every merchant's data: chmod 600 it`);
    }
  }
  return warnings;
}

/** The same for a folder payctl owns: made 0700 with a warning when it is wider. */
export function checkPrivateDirectory(directory: string): string[] {
  if (process.platform === 'win32') return [];
  let mode: number;
  try {
    mode = statSync(directory).mode;
  } catch {
    return [];
  }
  if ((mode & 0o077) === 0) return [];
  chmodSync(directory, PRIVATE_DIRECTORY_MODE);
  return [`${directory} was open to other users (mode ${octal(mode)}); it is now ${octal(PRIVATE_DIRECTORY_MODE)}`];
}
