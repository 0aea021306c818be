// Fault rules over HTTP: every kind of answer, exact counts under concurrent calls, a faulted call
// that changes nothing, validation, tenancy, and rules seen by a second server on the same database.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorageAt } from '../helpers/postgres.js';
import { startTestServer, type Merchant, type TestServer } from '../helpers/server.js';
import { authorize, capture, outbox, usd } from './payments-helpers.js';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({ journalSize: 10_000 });
});
afterAll(async () => {
  await t?.close();
});

async function addRule(rule: Record<string, unknown>, token?: string) {
  return t.request('POST', '/_payctl/faults', { body: rule, ...(token === undefined ? {} : { token }) });
}

async function freshMerchant(): Promise<Merchant> {
  return t.createMerchant();
}

const CAPTURE_PATTERN = '/v2/payments/authorizations/*/capture';

describe('fault rules', () => {
  it('answers the third matching call with a 500, once, and that call changes nothing', async () => {
    const m = await freshMerchant();
    const auths = [];
    for (let index = 0; index < 3; index++) auths.push(await authorize(t, '10.00', 'USD', { token: m.token }));
    const created = await addRule({ method: 'POST', path: CAPTURE_PATTERN, after: 2, times: 1, respond: { status: 500 } }, m.token);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ method: 'POST', path: CAPTURE_PATTERN, after: 2, times: 1, respond: { status: 500 }, matched: 0, fired: 0 });
    expect(created.body.id).toMatch(/^FAULT-/);

    expect((await capture(t, auths[0]!, usd('1.00'), {}, m.token)).status).toBe(200);
    expect((await capture(t, auths[1]!, usd('1.00'), {}, m.token)).status).toBe(200);
    const eventsBefore = (await outbox(t, m.payer_id)).length;
    const faulted = await capture(t, auths[2]!, usd('1.00'), {}, m.token);
    expect(faulted.status).toBe(500);
    expect(faulted.body).toMatchObject({ name: 'INTERNAL_SERVER_ERROR', message: expect.any(String), debug_id: expect.any(String) });
    expect((await outbox(t, m.payer_id)).length).toBe(eventsBefore);
    const authorization = await t.request('GET', `/v2/payments/authorizations/${auths[2]}`, { token: m.token });
    expect(authorization.body.status).toBe('CREATED');
    // The fourth call is past the rule: the same capture now goes through (and makes its event).
    expect((await capture(t, auths[2]!, usd('1.00'), {}, m.token)).status).toBe(200);
    expect((await outbox(t, m.payer_id)).length).toBeGreaterThan(eventsBefore);

    const rule = await t.request('GET', `/_payctl/faults/${created.body.id}`, { token: m.token });
    expect(rule.body).toMatchObject({ matched: 4, fired: 1 });
    const journal = await t.request('GET', `/_payctl/requests?path=${CAPTURE_PATTERN}`, { token: m.token });
    expect(journal.body.items.map((e: { status: number; fault_id: string | null }) => [e.status, e.fault_id])).toEqual([
      [200, null],
      [500, created.body.id],
      [200, null],
      [200, null],
    ]);
  });

  it("a reset of the merchant's data removes its rules, and its calls are answered again", async () => {
    const m = await freshMerchant();
    const other = await freshMerchant();
    const mine = await addRule({ method: 'GET', path: '/v2/payments/captures/*', respond: { status: 503 } }, m.token);
    const theirs = await addRule({ method: 'GET', path: '/v2/payments/captures/*', respond: { status: 503 } }, other.token);
    // Positive control: the rule answers before the reset.
    expect((await t.request('GET', '/v2/payments/captures/NOPE', { token: m.token })).status).toBe(503);
    expect((await t.request('POST', '/_payctl/reset', { token: m.token })).status).toBe(200);
    expect((await t.request('GET', `/_payctl/faults/${mine.body.id}`, { token: m.token })).status).toBe(404);
    expect((await t.request('GET', '/v2/payments/captures/NOPE', { token: m.token })).status).toBe(404);
    // Another merchant's rule is not touched.
    expect((await t.request('GET', `/_payctl/faults/${theirs.body.id}`, { token: other.token })).status).toBe(200);
    expect((await t.request('GET', '/v2/payments/captures/NOPE', { token: other.token })).status).toBe(503);
  });

  it('counts exactly under concurrent calls: after 5, times 3 fires on exactly three of 30', async () => {
    const m = await freshMerchant();
    const created = await addRule({ method: 'GET', path: '/v2/payments/captures/*', after: 5, times: 3, respond: { status: 503 } }, m.token);
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, index) => t.request('GET', `/v2/payments/captures/C${index}`, { token: m.token })),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 503)).toHaveLength(3);
    expect(statuses.filter((status) => status === 404)).toHaveLength(27);
    const rule = await t.request('GET', `/_payctl/faults/${created.body.id}`, { token: m.token });
    expect(rule.body).toMatchObject({ matched: 30, fired: 3 });
  });

  it('answers with a named error the API defines for the route, and refuses one it does not', async () => {
    const m = await freshMerchant();
    const auth = await authorize(t, '10.00', 'USD', { token: m.token });
    const created = await addRule({ method: 'POST', path: CAPTURE_PATTERN, respond: { name: 'UNPROCESSABLE_ENTITY', issue: 'INSTRUMENT_DECLINED' } }, m.token);
    expect(created.status).toBe(201);
    expect(created.body.times).toBeNull();
    const answer = await capture(t, auth, usd('1.00'), {}, m.token);
    expect(answer.status).toBe(422);
    expect(answer.body.name).toBe('UNPROCESSABLE_ENTITY');
    expect(answer.body.details[0].issue).toBe('INSTRUMENT_DECLINED');
    // times absent: every call.
    expect((await capture(t, auth, usd('1.00'), {}, m.token)).status).toBe(422);

    const unknownIssue = await addRule({ method: 'POST', path: CAPTURE_PATTERN, respond: { name: 'UNPROCESSABLE_ENTITY', issue: 'NO_SUCH_ISSUE' } }, m.token);
    expect(unknownIssue.status).toBe(400);
    expect(unknownIssue.body.details[0]).toMatchObject({ field: '/respond/issue', issue: 'INVALID_PARAMETER_VALUE' });
    const invoicingIssue = await addRule({ method: 'POST', path: CAPTURE_PATTERN, respond: { name: 'UNPROCESSABLE_ENTITY', issue: 'CANNOT_REMIND_INVOICE' } }, m.token);
    expect(invoicingIssue.status).toBe(400);
    const unknownName = await addRule({ method: 'POST', path: CAPTURE_PATTERN, respond: { name: 'TEAPOT', issue: 'INSTRUMENT_DECLINED' } }, m.token);
    expect(unknownName.body.details[0].field).toBe('/respond/name');
    const noRoute = await addRule({ method: 'POST', path: '/v2/payments/nowhere/*', respond: { status: 500 } }, m.token);
    expect(noRoute.status).toBe(400);
    expect(noRoute.body.details[0].field).toBe('/path');
    const controlPlane = await addRule({ method: 'POST', path: '/_payctl/reset', respond: { status: 500 } }, m.token);
    expect(controlPlane.status).toBe(400);
    const mixed = await addRule({ method: 'POST', path: CAPTURE_PATTERN, respond: { status: 500, delay_ms: 10 } }, m.token);
    expect(mixed.status).toBe(400);
    const noStatus = await addRule({ method: 'POST', path: CAPTURE_PATTERN, respond: { status: 418 } }, m.token);
    expect(noStatus.status).toBe(400);
  });

  it('answers 429 with Retry-After', async () => {
    const m = await freshMerchant();
    await addRule({ method: 'GET', path: '/v2/payments/captures/*', times: 1, respond: { status: 429, retry_after: 5 } }, m.token);
    const answer = await t.request('GET', '/v2/payments/captures/ANY', { token: m.token });
    expect(answer.status).toBe(429);
    expect(answer.headers.get('retry-after')).toBe('5');
    expect(answer.body.name).toBe('RATE_LIMIT_REACHED');
    expect((await t.request('GET', '/v2/payments/captures/ANY', { token: m.token })).status).toBe(404);
  });

  it('delays a call, then gives the real answer', async () => {
    const m = await freshMerchant();
    const auth = await authorize(t, '10.00', 'USD', { token: m.token });
    const created = await addRule({ method: 'POST', path: CAPTURE_PATTERN, times: 1, respond: { delay_ms: 300 } }, m.token);
    const answer = await capture(t, auth, usd('1.00'), {}, m.token);
    expect(answer.status).toBe(200);
    expect(answer.body.status).toBe('COMPLETED');
    const entry = (await t.request('GET', `/_payctl/requests?path=${CAPTURE_PATTERN}`, { token: m.token })).body.items[0];
    expect(entry.fault_id).toBe(created.body.id);
    expect(entry.duration_ms).toBeGreaterThanOrEqual(300);
  });

  it('drops the connection without an answer, and the call changes nothing', async () => {
    const m = await freshMerchant();
    const auth = await authorize(t, '10.00', 'USD', { token: m.token });
    const created = await addRule({ method: 'POST', path: CAPTURE_PATTERN, times: 1, respond: { drop: true } }, m.token);
    await expect(capture(t, auth, usd('1.00'), {}, m.token)).rejects.toThrow();
    const authorization = await t.request('GET', `/v2/payments/authorizations/${auth}`, { token: m.token });
    expect(authorization.body.status).toBe('CREATED');
    expect((await capture(t, auth, usd('1.00'), {}, m.token)).status).toBe(200);
    const entries = (await t.request('GET', `/_payctl/requests?path=${CAPTURE_PATTERN}`, { token: m.token })).body.items;
    expect(entries.map((e: { status: number | null; fault_id: string | null }) => [e.status, e.fault_id])).toEqual([
      [200, null],
      [null, created.body.id],
    ]);
  });

  it("keeps each merchant's rules its own; the admin key sees and deletes every rule", async () => {
    const a = await freshMerchant();
    const b = await freshMerchant();
    const rule = await addRule({ method: 'GET', path: '/v2/payments/captures/*', respond: { status: 500 } }, a.token);
    expect((await t.request('GET', '/v2/payments/captures/X', { token: b.token })).status).toBe(404);
    expect((await t.request('GET', '/v2/payments/captures/X', { token: a.token })).status).toBe(500);
    expect((await t.request('GET', '/_payctl/faults', { token: b.token })).body).toEqual({ items: [] });
    expect((await t.request('GET', `/_payctl/faults/${rule.body.id}`, { token: b.token })).status).toBe(404);
    expect((await t.request('DELETE', `/_payctl/faults/${rule.body.id}`, { token: b.token })).status).toBe(404);
    const all = await t.request('GET', '/_payctl/faults', { token: t.adminKey });
    expect(all.body.items.map((item: { id: string }) => item.id)).toContain(rule.body.id);
    expect((await t.request('DELETE', `/_payctl/faults/${rule.body.id}`, { token: a.token })).status).toBe(204);
    expect((await t.request('GET', '/v2/payments/captures/X', { token: a.token })).status).toBe(404);
    await addRule({ method: 'GET', path: '/v2/payments/captures/*', respond: { status: 500 } }, a.token);
    await addRule({ method: '*', path: '/v2/payments/refunds/*', respond: { status: 503 } }, a.token);
    expect((await t.request('GET', '/_payctl/faults', { token: a.token })).body.items).toHaveLength(2);
    expect((await t.request('DELETE', '/_payctl/faults', { token: a.token })).status).toBe(204);
    expect((await t.request('GET', '/_payctl/faults', { token: a.token })).body.items).toEqual([]);
    expect((await t.request('GET', '/v2/payments/captures/X', { token: a.token })).status).toBe(404);
  });

  it('is seen by a second server on the same database, which counts on the same rows', async () => {
    const second = await startTestServer({ dbPath: t.dbPath });
    try {
      const m = await freshMerchant();
      const created = await addRule({ method: 'GET', path: '/v2/payments/captures/*', after: 1, times: 1, respond: { status: 500 } }, m.token);
      // Call 1 on this server, call 2 (the faulted one) on the other, call 3 back here.
      expect((await t.request('GET', '/v2/payments/captures/Z', { token: m.token })).status).toBe(404);
      expect((await second.request('GET', '/v2/payments/captures/Z', { token: m.token })).status).toBe(500);
      expect((await t.request('GET', '/v2/payments/captures/Z', { token: m.token })).status).toBe(404);
      expect((await second.request('GET', `/_payctl/faults/${created.body.id}`, { token: m.token })).body).toMatchObject({ matched: 3, fired: 1 });
      // A rule deleted through the other server stops here too.
      await addRule({ method: 'GET', path: '/v2/payments/captures/*', respond: { status: 503 } }, m.token);
      expect((await t.request('GET', '/v2/payments/captures/Z', { token: m.token })).status).toBe(503);
      expect((await second.request('DELETE', '/_payctl/faults', { token: m.token })).status).toBe(204);
      expect((await t.request('GET', '/v2/payments/captures/Z', { token: m.token })).status).toBe(404);
    } finally {
      await second.close();
    }
  });

  it("keeps each merchant's count of rules on its account row, exactly, through every way rules come and go", async () => {
    const a = await freshMerchant();
    const b = await freshMerchant();
    const storage = await openStorageAt(t.dbPath);
    const counts = async () => {
      const rows = await storage.db.selectFrom('accounts').select(['id', 'fault_rule_count']).where('id', 'in', [a.payer_id, b.payer_id]).execute();
      const rules = await storage.db.selectFrom('fault_rules').select('account_id').where('account_id', 'in', [a.payer_id, b.payer_id]).execute();
      const of = (id: string) => ({
        counted: Number(rows.find((row) => row.id === id)?.fault_rule_count),
        rules: rules.filter((rule) => rule.account_id === id).length,
      });
      return { a: of(a.payer_id), b: of(b.payer_id) };
    };
    const rule = { method: 'GET', path: '/v2/payments/captures/*', respond: { status: 500 } };
    try {
      expect(await counts()).toEqual({ a: { counted: 0, rules: 0 }, b: { counted: 0, rules: 0 } });
      // Ten at once on one merchant, two on the other.
      const added = await Promise.all([...Array.from({ length: 10 }, () => addRule(rule, a.token)), addRule(rule, b.token), addRule(rule, b.token)]);
      expect(added.map((answer) => answer.status)).toEqual(Array(12).fill(201));
      expect(await counts()).toEqual({ a: { counted: 10, rules: 10 }, b: { counted: 2, rules: 2 } });
      // One deleted by its merchant, one by the admin key, one refused (another merchant's).
      expect((await t.request('DELETE', `/_payctl/faults/${added[0]!.body.id}`, { token: a.token })).status).toBe(204);
      expect((await t.request('DELETE', `/_payctl/faults/${added[1]!.body.id}`, { token: t.adminKey })).status).toBe(204);
      expect((await t.request('DELETE', `/_payctl/faults/${added[2]!.body.id}`, { token: b.token })).status).toBe(404);
      expect(await counts()).toEqual({ a: { counted: 8, rules: 8 }, b: { counted: 2, rules: 2 } });
      // A reset of a's data removes its rules; b's delete-all removes b's.
      expect((await t.request('POST', '/_payctl/reset', { token: a.token })).status).toBeLessThan(300);
      expect((await t.request('DELETE', '/_payctl/faults', { token: b.token })).status).toBe(204);
      expect(await counts()).toEqual({ a: { counted: 0, rules: 0 }, b: { counted: 0, rules: 0 } });
      // The admin key's delete-all takes each rule from its own merchant's count.
      await Promise.all([addRule(rule, a.token), addRule(rule, b.token), addRule(rule, b.token)]);
      expect((await t.request('DELETE', '/_payctl/faults', { token: t.adminKey })).status).toBe(204);
      expect(await counts()).toEqual({ a: { counted: 0, rules: 0 }, b: { counted: 0, rules: 0 } });
    } finally {
      await storage.close();
    }
  });

  it('holds on a server that had already seen the merchant without rules (its token read before the rule)', async () => {
    const second = await startTestServer({ dbPath: t.dbPath });
    try {
      const m = await freshMerchant();
      // The other server learns this token (and that the merchant has no rules) first.
      expect((await second.request('GET', '/v2/payments/captures/Y', { token: m.token })).status).toBe(404);
      await addRule({ method: 'GET', path: '/v2/payments/captures/*', respond: { status: 503 } }, m.token);
      expect((await second.request('GET', '/v2/payments/captures/Y', { token: m.token })).status).toBe(503);
      expect((await t.request('DELETE', '/_payctl/faults', { token: m.token })).status).toBe(204);
      expect((await second.request('GET', '/v2/payments/captures/Y', { token: m.token })).status).toBe(404);
    } finally {
      await second.close();
    }
  });
});
