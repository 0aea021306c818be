// The development check of routes that check their token in their transaction (http/token-check.ts):
// under the test runner, such a route that answers success without its transaction having confirmed
// the token is answered 500, so a route flagged by mistake fails its own tests.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import type { ServerDeps } from '../../src/server/core/deps.js';
import type { Caller } from '../../src/server/http/auth.js';
import { MUTATION_ROUTE } from '../../src/server/http/idempotency.js';
import { installTokenChecks } from '../../src/server/http/token-check.js';
import type { TokenCheck } from '../../src/server/oauth/api.js';

/** A caller started on a process's memory of its token, as http/auth.ts makes one on PostgreSQL. */
const unconfirmed: Caller = {
  accountId: 'MERCHANT1',
  ownAccountId: 'MERCHANT1',
  appId: 'APP1',
  clientId: 'CLIENT1',
  viaAssertion: false,
  account: { email: 'm@example.com', kycStatus: 'VERIFIED', hasFaultRules: false },
  unconfirmed: { accessToken: 'remembered-token' } as TokenCheck,
};

describe('a route flagged tokenCheckedInTransaction that succeeds without runMutation', () => {
  let app: FastifyInstance;
  let url: string;
  const logged: string[] = [];

  beforeAll(async () => {
    app = Fastify({ logger: { level: 'error', stream: { write: (line: string) => logged.push(line) } } });
    // Storage without process caches (PostgreSQL): the checks are installed.
    const check = installTokenChecks(app, { storage: { processCaches: false } } as unknown as ServerDeps);
    if (check === undefined) throw new Error('installTokenChecks installed nothing without process caches');
    app.decorateRequest('caller', null);
    app.addHook('onRoute', (route) => {
      if (route.config?.tokenCheckedInTransaction === true) check(route, async () => undefined);
    });
    app.addHook('onRequest', (request, _reply, done) => {
      request.caller = { ...unconfirmed };
      done();
    });
    app.post('/flagged', MUTATION_ROUTE, async () => ({ changed: true }));
    app.post('/confirmed', MUTATION_ROUTE, async (request) => {
      // What runMutation does once its transaction found the token as remembered.
      request.caller = { ...request.caller!, unconfirmed: undefined };
      return { changed: true };
    });
    url = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('is answered 500 in the error shape under the test runner', async () => {
    const response = await fetch(`${url}/flagged`, { method: 'POST' });
    expect(response.status).toBe(500);
    expect(((await response.json()) as { name: string }).name).toBe('INTERNAL_SERVER_ERROR');
    // The guard's own refusal, not a failed lookup of the token (these stand-in deps have no database).
    expect(logged.join('')).toContain('POST /flagged has tokenCheckedInTransaction but succeeded without runMutation confirming its token');
  });

  it('answers as the route does once the caller is confirmed', async () => {
    const response = await fetch(`${url}/confirmed`, { method: 'POST' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ changed: true });
  });

  it('is not installed where the storage keeps process caches (SQLite)', () => {
    expect(installTokenChecks(Fastify(), { storage: { processCaches: true } } as unknown as ServerDeps)).toBeUndefined();
  });
});
