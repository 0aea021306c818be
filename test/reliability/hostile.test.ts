// Hostile input: every route's valid request, broken in every way we know, must be answered with a
// 4xx in the error shape, promptly, and write nothing. Slow clients are cut off without blocking
// others. The routes come from the running server, so a new route needs a fixture to pass.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../src/server/core/deps.js';
import { startTestServer } from '../helpers/server.js';
import { changedTables, errorShapeProblem, inPool, rawExchange, rawRequest, send, snapshot, type Answer } from './fixtures/http.js';
import { mutationsOf, type Mutation } from './fixtures/mutations.js';
import { Receiver, Resources, settle } from './fixtures/resources.js';
import { ROUTE_FIXTURES, fixtureFor, routeKey, wireRequest, type Credentials, type ValidRequest } from './fixtures/routes.js';

const t = await startTestServer({ memory: true, config: { jobIntervalMs: 3_600_000 } });
const receiver = await Receiver.start();
const routes = t.server.routes;

const figures = { requests: 0, byStatus: new Map<number, number>(), byKind: new Map<string, number>(), slowestMs: 0 };
const count = (map: Map<string | number, number>, key: string | number) => map.set(key, (map.get(key) ?? 0) + 1);

afterAll(async () => {
  await t.close();
  await receiver.close();
  const statuses = [...figures.byStatus].sort(([a], [b]) => a - b).map(([status, n]) => `${status}: ${n}`).join(', ');
  const kinds = [...figures.byKind].map(([kind, n]) => `${kind} ${n}`).join(', ');
  console.log(`hostile input: ${routes.length} routes, ${figures.requests} broken requests; answers ${statuses}; slowest ${figures.slowestMs} ms\n  by kind: ${kinds}`);
});

const credentials = (): Credentials => ({
  token: t.merchant.token,
  adminKey: t.adminKey,
  clientId: t.merchant.client_id,
  clientSecret: t.merchant.client_secret,
});

describe('the fixture table', () => {
  it('has a valid request for every served route, and none for routes that are gone', () => {
    const served = new Set(routes.map(routeKey));
    expect(routes.length).toBeGreaterThan(80);
    expect(routes.filter((route) => !ROUTE_FIXTURES[routeKey(route)]).map(routeKey)).toEqual([]);
    expect(Object.keys(ROUTE_FIXTURES).filter((key) => !served.has(key))).toEqual([]);
  });

  it.each(routes.map((route) => [routeKey(route), route] as const))('%s: the valid request succeeds', async (_key, route) => {
    const fixture = fixtureFor(route);
    const resources = new Resources(t, t.merchant, receiver);
    const request = await fixture.build(resources);
    const wire = wireRequest(route, request, credentials());
    const answer: Answer = await send(t.url, { method: route.method, ...wire });
    expect(answer.status, answer.text.slice(0, 500)).toBe(fixture.ok);
  });
});

/** Sends one broken request; its answer must come within the per-request timeout. */
function deliver(mutation: Mutation): Promise<Answer> {
  if (mutation.bytes) return rawExchange(t.url, mutation.bytes);
  if (mutation.raw) return rawExchange(t.url, rawRequest(mutation.method, mutation.target, mutation.headers, mutation.body));
  return send(t.url, { method: mutation.method, target: mutation.target, headers: mutation.headers, ...(mutation.body !== undefined ? { body: mutation.body } : {}) });
}

describe('broken requests', () => {
  const valid = new Map<string, ValidRequest>();
  const digest = async () => JSON.stringify(await snapshot(t.server.db));

  beforeAll(async () => {
    const shared = new Resources(t, t.merchant, receiver);
    for (const route of routes) valid.set(routeKey(route), await fixtureFor(route).build(shared));
    await settle(digest);
  }, 120_000);

  it.each(routes.map((route) => [routeKey(route), route] as const))('%s: every break is a prompt 4xx in the error shape and writes nothing', async (key, route) => {
    const fixture = fixtureFor(route);
    const request = valid.get(key) as ValidRequest;
    const methodsOnPath = routes.filter((other) => other.url === route.url).map((other) => other.method);
    const mutations = mutationsOf({ route, fixture, request, credentials: credentials(), methodsOnPath, defaultBodyLimit: DEFAULT_CONFIG.bodyLimit });
    const before = await snapshot(t.server.db);
    const problems: string[] = [];
    await inPool(
      4,
      mutations.map((mutation) => async () => {
        let answer: Answer;
        try {
          answer = await deliver(mutation);
        } catch (error) {
          problems.push(`${mutation.kind} ${mutation.label}: ${(error as Error).message}`);
          return;
        }
        figures.requests += 1;
        count(figures.byStatus, answer.status);
        count(figures.byKind, mutation.kind);
        figures.slowestMs = Math.max(figures.slowestMs, answer.elapsedMs);
        const problem = errorShapeProblem(answer, fixture.errors ?? 'service') ?? mutation.check?.(answer);
        if (problem) problems.push(`${mutation.kind} ${mutation.label}: ${problem}`);
      }),
    );
    const after = await snapshot(t.server.db);
    expect(mutations.length).toBeGreaterThan(0);
    expect(problems).toEqual([]);
    expect(changedTables(before, after)).toEqual([]);
  });
});
