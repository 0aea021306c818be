// Makes the V8 code cache of the server bundle: loads it, starts it on :memory:, answers a few
// requests (health, a token, an authenticated read, a refused one), then writes the cache, which
// then holds every function compiled so far. Run by scripts/bundle-server.mjs.
import { resolve } from 'node:path';
import { requireWithCodeCache } from '../dist/lib/code-cache.js';

const bundle = resolve(process.argv[2] ?? 'dist/server-bundle.cjs');
const loaded = requireWithCodeCache(bundle);
const server = await loaded.exports.startServer({ dbPath: ':memory:', port: 0, credentialsFile: null, logLevel: 'fatal' });
try {
  const { client_id: id, client_secret: secret } = server.defaultCredentials;
  const health = await fetch(`${server.url}/_payctl/health`);
  await health.text();
  const tokenAnswer = await fetch(`${server.url}/v1/oauth2/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  const { access_token: token } = await tokenAnswer.json();
  if (typeof token !== 'string') throw new Error(`warm-up: no token (${tokenAnswer.status})`);
  for (const path of ['/v2/payments/captures/NOSUCHCAPTURE', '/v2/invoicing/invoices?page_size=1']) {
    await (await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}` } })).text();
  }
} finally {
  await server.close();
}
if (!loaded.save()) throw new Error(`could not write the code cache beside ${bundle}`);
