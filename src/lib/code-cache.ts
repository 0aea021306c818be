// Loads a CommonJS bundle through V8's code cache. Node 20 has no module compile cache, and the
// server bundle (2.4 MB) took ~65 ms to parse on every `payctl serve`; with the cache V8 skips the
// parse and also gets the functions compiled while the cache was made (start-up and a first request).

import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { cachedDataVersionTag } from 'node:v8';
import { Script } from 'node:vm';

export type CodeCacheState = 'used' | 'rejected' | 'missing';

export interface CachedModule<T> {
  exports: T;
  /** used: V8 took the cache; rejected: it did not match this node (version, flags, source); missing: none yet. */
  cache: CodeCacheState;
  /** Writes the cache (with every function compiled so far); false when the place is not writable. */
  save(): boolean;
}

/**
 * Where the cache of `file` lives: beside it, named by V8's tag for this node (its version, its V8
 * flags, the CPU): a `serve` run with V8 flags (say NODE_OPTIONS=--max-semi-space-size=8) keeps its
 * own instead of rejecting and rewriting the plain one each time.
 */
export const codeCacheFile = (file: string): string => `${file}.${cachedDataVersionTag().toString(16)}.v8cache`;

/**
 * Evaluates `file` as a CommonJS module (the same wrapper Node uses), with the code cache beside it
 * when there is one that V8 accepts. A rejected or missing cache only costs the normal compile.
 */
export function requireWithCodeCache<T>(file: string): CachedModule<T> {
  const cacheFile = codeCacheFile(file);
  const source = readFileSync(file, 'utf8');
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
  const run = script.runInThisContext() as (exports: T, require: NodeJS.Require, module: { exports: T }, filename: string, dirname: string) => void;
  run(module.exports, createRequire(file), module, file, dirname(file));
  return {
    exports: module.exports,
    cache,
    save: () => {
      const temporary = `${cacheFile}.${process.pid}.tmp`;
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
