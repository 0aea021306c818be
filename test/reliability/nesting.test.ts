// Deeply nested JSON: every mutating route, with a request id (so the request is hashed for
// idempotency), answers a body nested 2,000 or 10,000 levels deep with 400 MAX_DEPTH_EXCEEDED naming
// the field, and writes nothing. The limit is exact: 32 levels pass the edge, 33 do not.

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../src/server/http/json-depth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { changedTables, detailsOf, send, snapshot } from './fixtures/http.js';
import { Receiver, Resources, settle } from './fixtures/resources.js';
import { fixtureFor, routeKey, wireRequest, type Credentials, type ValidRequest } from './fixtures/routes.js';

const t: TestServer = await startTestServer({ memory: true, config: { jobIntervalMs: 3_600_000 } });
const receiver = await Receiver.start();
const figures: string[] = [];

afterAll(async () => {
  await t.close();
  await receiver.close();
  console.log(`nesting: ${figures.join('; ')}`);
});

const credentials = (): Credentials => ({ token: t.merchant.token, adminKey: t.adminKey, clientId: t.merchant.client_id, clientSecret: t.merchant.client_secret });
const deepObject = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
const deepArray = (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}`;
/** The pointer the server names for a value nested under `/nested` past the limit. */
const limitPointer = (segment: string) => `/nested${`/${segment}`.repeat(MAX_JSON_DEPTH - 1)}`;

/** The valid body with `/nested` (or one more array item) holding `fragment`. */
function withNested(body: unknown, fragment: string): string {
  const text = JSON.stringify(body);
  if (Array.isArray(body)) return text === '[]' ? `[${fragment}]` : `${text.slice(0, -1)},${fragment}]`;
  return text === '{}' ? `{"nested":${fragment}}` : `${text.slice(0, -1)},"nested":${fragment}}`;
}

const mutating = t.server.routes.filter((route) => ['POST', 'PUT', 'PATCH'].includes(route.method));

describe('a deeply nested body with a request id', () => {
  const valid = new Map<string, ValidRequest>();
  const digest = async () => JSON.stringify(await snapshot(t.server.db));

  beforeAll(async () => {
    const shared = new Resources(t, t.merchant, receiver);
    for (const route of mutating) valid.set(routeKey(route), await fixtureFor(route).build(shared));
    await settle(t, digest);
  }, 120_000);

  const jsonRoutes = () => mutating.filter((route) => valid.get(routeKey(route))?.body !== undefined && fixtureFor(route).errors === undefined);

  it('covers the mutating JSON routes', () => {
    expect(jsonRoutes().length).toBeGreaterThan(40);
    figures.push(`${jsonRoutes().length} mutating JSON routes`);
  });

  it.each([2_000, 10_000])('nested %i deep: every route answers 400 MAX_DEPTH_EXCEEDED naming the field, and writes nothing', async (depth) => {
    const before = await snapshot(t.server.db);
    const problems: string[] = [];
    let slowest = 0;
    for (const route of jsonRoutes()) {
      const request = valid.get(routeKey(route)) as ValidRequest;
      const wire = wireRequest(route, request, credentials());
      const isArray = Array.isArray(request.body);
      for (const [shape, fragment] of [['objects', deepObject(depth)], ['arrays', deepArray(depth)]] as const) {
        const answer = await send(t.url, {
          method: route.method,
          target: wire.target,
          headers: { ...wire.headers, 'paypal-request-id': randomUUID() },
          body: withNested(request.body, fragment),
        });
        slowest = Math.max(slowest, answer.elapsedMs);
        const detail = detailsOf(answer)[0];
        const field = isArray ? '' : limitPointer(shape === 'objects' ? 'a' : '0');
        if (answer.status !== 400 || detail?.issue !== 'MAX_DEPTH_EXCEEDED' || detail.location !== 'body' || (!isArray && detail.field !== field)) {
          problems.push(`${routeKey(route)} ${shape}: ${answer.status} ${answer.text.slice(0, 200)}`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(changedTables(before, await snapshot(t.server.db))).toEqual([]);
    figures.push(`${depth} deep: ${jsonRoutes().length * 2} requests refused, slowest ${slowest} ms`);
  });
});

describe('the limit', () => {
  const topUp = (body: string) =>
    send(t.url, {
      method: 'POST',
      target: '/_payctl/balances',
      headers: { authorization: `Bearer ${t.merchant.token}`, 'content-type': 'application/json', 'paypal-request-id': randomUUID() },
      body,
    });

  it(`${MAX_JSON_DEPTH} levels pass the edge (the unknown field is dropped); ${MAX_JSON_DEPTH + 1} are refused naming the level`, async () => {
    // The top-level object is level 1: the objects under `x` are levels 2, 3, ...
    const atLimit = await topUp(`{"currency":"USD","value":"1.00","x":${deepObject(MAX_JSON_DEPTH - 1)}}`);
    expect(atLimit.status, atLimit.text).toBe(200);
    const past = await topUp(`{"currency":"USD","value":"1.00","x":${deepObject(MAX_JSON_DEPTH)}}`);
    expect(past.status).toBe(400);
    expect(detailsOf(past)).toEqual([
      expect.objectContaining({ field: `/x${'/a'.repeat(MAX_JSON_DEPTH - 1)}`, issue: 'MAX_DEPTH_EXCEEDED', location: 'body' }),
    ]);
  });

  it('brackets inside strings do not count, and keys with escapes are named as they decode', async () => {
    const inString = await topUp(`{"currency":"USD","value":"1.00","note":"${'['.repeat(5_000)}"}`);
    expect(inString.status, inString.text).toBe(200);
    const escaped = await topUp(`{"currency":"USD","value":"1.00","a\\"/b":${deepArray(MAX_JSON_DEPTH)}}`);
    expect(escaped.status).toBe(400);
    expect(detailsOf(escaped)[0]?.field).toBe(`/a"~1b${'/0'.repeat(MAX_JSON_DEPTH - 1)}`);
  });

  it('a multipart dispute action with a deep JSON input part is refused the same way', async () => {
    const resources = new Resources(t, t.merchant, receiver);
    const route = t.server.routes.find((candidate) => candidate.method === 'POST' && candidate.url === '/v1/customer/disputes/:id/provide-evidence');
    expect(route).toBeDefined();
    const request = await fixtureFor(route!).build(resources);
    const wire = wireRequest(route!, request, credentials());
    await settle(t);
    const before = await snapshot(t.server.db);
    for (const asFile of [false, true]) {
      const form = new FormData();
      const input = withNested(request.body, deepObject(2_000));
      if (asFile) form.append('input', new Blob([input], { type: 'application/json' }), 'input.json');
      else form.append('input', input);
      const answer = await send(t.url, {
        method: 'POST',
        target: wire.target,
        headers: { authorization: wire.headers.authorization ?? '', 'paypal-request-id': randomUUID() },
        body: form as unknown as string,
      });
      expect(answer.status, answer.text).toBe(400);
      expect(detailsOf(answer)[0]).toMatchObject({ issue: 'MAX_DEPTH_EXCEEDED', field: limitPointer('a') });
    }
    expect(changedTables(before, await snapshot(t.server.db))).toEqual([]);
  });
});
