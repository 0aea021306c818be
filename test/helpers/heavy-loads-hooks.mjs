// Module resolution hook: reports (via the main thread's port) every heavy server module resolved:
// the packages themselves, and the unbundled server entry of payctl (the bundle is CommonJS, seen by
// report-heavy-loads.mjs). It also reports the command file that oclif imports ("command auth/token"),
// which the CLI bundle does not hide, and oclif's runtime entry ("oclif-runtime", dist/bundle/main.js).
let port;
/** The heavy packages, as report-heavy-loads.mjs lists them (passed in, so there is one list). */
let HEAVY = new Set();
export function initialize(data) {
  port = data.port;
  HEAVY = new Set(data.heavy);
}
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (HEAVY.has(specifier)) port.postMessage(specifier);
  else if (/\/dist\/server\/index\.js$/.test(resolved.url)) port.postMessage('payctl-server');
  else if (/\/dist\/bundle\/main\.js$/.test(resolved.url)) port.postMessage('oclif-runtime');
  else {
    const command = /\/dist\/(?:bundle\/)?commands\/(.+)\.js$/.exec(resolved.url);
    if (command) port.postMessage(`command ${command[1]}`);
  }
  return resolved;
}
