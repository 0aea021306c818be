// Preloaded with --import by tests: prints HEAVY-MODULE-LOADED <name> on stderr when one is loaded.
// ES modules are seen by a resolve hook (heavy-loads-hooks.mjs); CommonJS requires (better-sqlite3,
// or from the server bundle its native addon) by wrapping Module._load; the server bundle itself, which
// src/lib/code-cache.ts reads and evaluates through vm.Script, by wrapping fs.readFileSync.
import fs from 'node:fs';
import Module, { register, syncBuiltinESMExports } from 'node:module';
import { MessageChannel } from 'node:worker_threads';

const HEAVY = new Set(['fastify', 'better-sqlite3', 'kysely', 'undici', 'conf']);
const report = (name) => process.stderr.write(`HEAVY-MODULE-LOADED ${name}\n`);

const { port1, port2 } = new MessageChannel();
port1.on('message', report);
port1.unref();
register('./heavy-loads-hooks.mjs', { parentURL: import.meta.url, data: { port: port2, heavy: [...HEAVY] }, transferList: [port2] });

const load = Module._load;
Module._load = function (request, ...rest) {
  // The server bundle inlines better-sqlite3's JavaScript and requires its addon by path.
  if (HEAVY.has(request)) report(request);
  else if (/[\\/]better_sqlite3\.node$/.test(request)) report('better-sqlite3');
  return load.call(this, request, ...rest);
};

const readFileSync = fs.readFileSync;
fs.readFileSync = function (path, ...rest) {
  if (/\/dist\/server-bundle\.cjs$/.test(String(path))) report('payctl-server');
  return readFileSync.call(this, path, ...rest);
};
syncBuiltinESMExports();
