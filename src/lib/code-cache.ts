// Loads a CommonJS bundle through V8's code cache. Node 20 has no module compile cache, and the
// server bundle (2.4 MB) took ~65 ms to parse on every `payctl serve`; with the cache V8 skips the
// parse and also gets the functions compiled while the cache was made (start-up and a first request).

import { createHash, randomBytes } from 'node:crypto';
import { accessSync, constants, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { cachedDataVersionTag } from 'node:v8';
import { Script } from 'node:vm';

export type CodeCacheState = 'used' | 'rejected' | 'missing';

export interface CachedModule<T> {
  exports: T;
  /** used: V8 took the cache; rejected: V8 refused the file found (damaged); missing: none yet for this source and this node. */
  cache: CodeCacheState;
  /** Writes the cache (with every function compiled so far); false when the place is not writable. */
  save(): boolean;
}

/**
 * Where the cache of a source lives: beside its file, named by a hash of the source and by V8's tag
 * for this node (its version, its V8 flags, the CPU). V8 itself checks a cache only against the
 * source's length and the tag, so a cache must never be found for other source text: an edit that
 * keeps the length would otherwise run the old compiled code. A run with V8 flags (say
 * NODE_OPTIONS=--max-semi-space-size=8) keeps its own cache instead of rewriting the plain one.
 */
function cacheFileFor(file: string, source: Buffer): string {
  const digest = createHash('sha256').update(source).digest('hex').slice(0, 16);
  return `${file}.${digest}.${cachedDataVersionTag().toString(16)}.v8cache`;
}

/** The cache file `requireWithCodeCache(file)` would use now (for tests and tools). */
export const codeCacheFile = (file: string): string => cacheFileFor(file, readFileSync(file));

/**
 * Evaluates `file` as a CommonJS module (the same wrapper Node uses), with the code cache beside it
 * when there is one that V8 accepts. A rejected or missing cache only costs the normal compile.
 */
export function requireWithCodeCache<T>(file: string): CachedModule<T> {
  const bytes = readFileSync(file);
  const cacheFile = cacheFileFor(file, bytes);
  const source = bytes.toString('utf8');
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  // The wrapper stays on the first line so that line numbers in stack traces are the file's.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    ...(cachedData ? { cachedData } : {}),
  });
  const cache: CodeCacheState = cachedData === undefined ? 'missing' : script.cachedDataRejected === true ? 'rejected' : 'used';
  const module = { exports: {} as T };
  const run = script.runInThisContext() as (this: T, exports: T, require: NodeJS.Require, module: { exports: T }, filename: string, dirname: string) => void;
  run.call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
  return {
    exports: module.exports,
    cache,
    save: () => {
      // Checked first: making the cache data costs ~15 ms, wasted where it cannot be written.
      try {
        accessSync(dirname(cacheFile), constants.W_OK);
      } catch {
        return false;
      }
      // Unique per writer (two containers sharing a dist/ may both be pid 1); the rename is atomic.
      const temporary = `${cacheFile}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
      try {
        writeFileSync(temporary, script.createCachedData());
        renameSync(temporary, cacheFile);
        return true;
      } catch {
        rmSync(temporary, { force: true });
        return false;
      }
    },
  };
}
