// Module resolution hook: reports (on stderr, via the main thread's port) every heavy server module resolved.
const HEAVY = new Set(['fastify', 'better-sqlite3', 'kysely', 'undici']);
let port;
export function initialize(data) {
  port = data.port;
}
export async function resolve(specifier, context, next) {
  if (HEAVY.has(specifier)) port.postMessage(specifier);
  return next(specifier, context);
}
