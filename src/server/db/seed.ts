// A new database file starts as a copy of the schema template the build makes
// (dist/schema-template.db): every migration applied, and only the rows migrations write. Creating
// the 28 tables and 64 indexes and committing them cost ~8 ms of every first start (fresh files are
// what CI runs and the benchmark measures); copying 400 KB and syncing it costs ~2 ms. migrate()
// still runs on the copy, so a template older than this payctl is brought up to date like any
// database.

import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, linkSync, openSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { isoSeconds } from '../core/clock.js';
import { MEMORY_DB, closeDatabase, openDatabase } from './connection.js';
import { makePrivateDirectory, writeNewPrivateFile } from './file-modes.js';
import { migrate } from './migrate.js';

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');
const HEADER_BYTES = 100;

/**
 * The template's bytes, or undefined when it is missing or not a whole SQLite file: the magic
 * string, and a length that is the page count in the header (valid while the header's change counter
 * and "version valid for" agree) times the page size. A truncated copy is refused, never seeded.
 */
function readWholeTemplate(template: string): Buffer | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(template);
  } catch {
    return undefined;
  }
  if (bytes.length < HEADER_BYTES || !bytes.subarray(0, SQLITE_MAGIC.length).equals(SQLITE_MAGIC)) return undefined;
  const rawPageSize = bytes.readUInt16BE(16);
  const pageSize = rawPageSize === 1 ? 65_536 : rawPageSize;
  const pageCount = bytes.readUInt32BE(28);
  const countValid = bytes.readUInt32BE(24) === bytes.readUInt32BE(92);
  return countValid && pageCount > 0 && bytes.length === pageSize * pageCount ? bytes : undefined;
}

/** Best effort: some file systems refuse to sync a directory; the file itself was synced. */
function syncDirectory(directory: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(directory, 'r');
    fsyncSync(fd);
  } catch {
    // nothing more to do
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Creates `path` as a copy of the template when no database is there yet; true when it did. Never
 * replaces a file: the copy is written beside it, synced, then linked into place, which fails if
 * another process created the file meanwhile (that one is used). Written 0600 whatever the umask
 * and the template's own mode (db/file-modes.ts). Anything unusual (no
 * template, a damaged one, a WAL file already beside `path`, a file system without hard links)
 * leaves the path alone and SQLite creates the file as before.
 */
export function seedFromTemplate(path: string, template: string): boolean {
  if (path === MEMORY_DB || existsSync(path) || existsSync(`${path}-wal`)) return false;
  const bytes = readWholeTemplate(template);
  if (!bytes) return false;
  const directory = dirname(path);
  const temporary = join(directory, `.${basename(path)}.${randomBytes(6).toString('hex')}.seed`);
  try {
    makePrivateDirectory(directory);
    writeNewPrivateFile(temporary, bytes, { sync: true });
    linkSync(temporary, path);
  } catch {
    return false;
  } finally {
    rmSync(temporary, { force: true });
  }
  syncDirectory(directory);
  return true;
}

/**
 * Writes the template (build time): a new database with every migration applied, checkpointed into
 * one file, put in place by a rename. Its migration records carry `appliedAt` (by default, now).
 */
export async function writeSchemaTemplate(file: string, appliedAt: string = isoSeconds(new Date())): Promise<void> {
  const temporary = `${file}.${process.pid}.tmp`;
  const removeTemporary = () => {
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${temporary}${suffix}`, { force: true });
  };
  removeTemporary();
  try {
    const opened = openDatabase(temporary);
    try {
      migrate(opened.sqlite, appliedAt);
    } finally {
      await closeDatabase(opened);
    }
    if (!readWholeTemplate(temporary)) throw new Error(`the schema template ${temporary} was not written as one whole file`);
    renameSync(temporary, file);
  } finally {
    removeTemporary();
  }
}
