// Finds and loads the server for `payctl serve`: the bundle (through V8's code cache) when the
// build made it, the compiled modules otherwise. Heavy modules (Fastify, better-sqlite3) load only here.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { requireWithCodeCache } from './code-cache.js';

export type ServerModule = typeof import('../server/index.js');

export interface LoadedServer {
  server: ServerModule;
  /** Call once the server is up: rewrites a missing or rejected code cache (e.g. after a node upgrade). */
  started(): void;
}

/** The empty database the build makes with every migration applied (src/server/db/seed.ts). */
export const schemaTemplatePath = (root: string): string => join(root, 'dist/schema-template.db');

/** Found from the package root, not from this file: the CLI runs it bundled, from dist/bundle/commands. */
export async function loadServer(root: string): Promise<LoadedServer> {
  const bundle = join(root, 'dist/server-bundle.cjs');
  if (existsSync(bundle)) {
    const loaded = requireWithCodeCache<ServerModule>(bundle);
    return { server: loaded.exports, started: () => void (loaded.cache === 'used' || loaded.save()) };
  }
  const server = (await import(pathToFileURL(join(root, 'dist/server/index.js')).href)) as ServerModule;
  return { server, started: () => undefined };
}
