// Two servers on one database behave as one: nothing one of them keeps in memory (tokens, answers,
// page indexes, expiry times, clock offsets) outlives a change the other made. On SQLite they share
// a file (two connections); in the PostgreSQL run (PAYCTL_TEST_BACKEND=postgres) a database.

import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { onPostgres } from '../helpers/postgres.js';
import { waitFor } from '../helpers/wait.js';
import { hasUnfannedEvents } from '../../src/server/notifications/store.js';
import { tokenStats } from '../../src/server/oauth/api.js';
import { httpRequest, startTestServer, type RequestOptions, type TestServer } from '../helpers/server.js';
import { startServe } from '../reliability/support/serve-process.js';
import { createInvoice, simpleInvoice } from './invoicing-helpers.js';
import { FULL, authorize, capture } from './payments-helpers.js';

const CREDENTIALS = { clientId: 'replica-client', clientSecret: 'replica-secret', adminKey: 'replica-admin-key' };
const DAY_SECONDS = 86_400;
// Jobs run only when a test (or a clock advance) asks for them.
const QUIET = { jobIntervalMs: 3_600_000 };

/** Options of another server on `first`'s database: on PostgreSQL also its credentials file (one signing-key secret). */
const sameDatabase = (first: TestServer) => ({
  ...CREDENTIALS,
  dbPath: first.dbPath,
  config: QUIET,
  ...(onPostgres ? { credentialsFile: join(first.dir, 'payctl.credentials.json') } : {}),
});

/** One statement from a connection of its own, as another process would run it. */
async function fromAnotherConnection(first: TestServer, sql: { sqlite: string; postgres: string }, params: unknown[]): Promise<void> {
  if (onPostgres) {
    const client = new pg.Client({ connectionString: first.dbPath });
    await client.connect();
    try {
      await client.query(sql.postgres, params);
    } finally {
      await client.end();
    }
    return;
  }
  const other = new BetterSqlite3(first.dbPath);
  try {
    other.prepare(sql.sqlite).run(...params);
  } finally {
    other.close();
  }
}

const on = (server: TestServer, token: string) =>
  <T = any>(method: string, path: string, options: RequestOptions = {}) => httpRequest<T>(`${server.url}${path}`, method, { token, ...options });

describe(`two servers on one ${onPostgres ? 'PostgreSQL database' : 'SQLite file'}`, () => {
  let a: TestServer;
  let b: TestServer;

  beforeAll(async () => {
    a = await startTestServer({ ...CREDENTIALS, config: QUIET });
    b = await startTestServer(sameDatabase(a));
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  /** A merchant of its own per test (made on A), so clocks and resets do not meet. */
  async function merchant() {
    const made = await a.createMerchant();
    return { ...made, onA: on(a, made.token), onB: on(b, made.token) };
  }

  it('takes on each server a token the other issued', async () => {
    const m = await merchant();
    const fromB = await b.tokenFor(m.client_id, m.client_secret);
    expect((await m.onB('GET', '/_payctl/whoami')).body.payer_id).toBe(m.payer_id);
    expect((await on(a, fromB)('GET', '/_payctl/whoami')).body.payer_id).toBe(m.payer_id);
  });

  it('shows on B a payment write acknowledged by A, even with B holding the answer before it', async () => {
    const m = await merchant();
    const authId = await authorize(a, '10.00', 'USD', { token: m.token });
    const path = `/v2/payments/authorizations/${authId}`;
    // The authorization's event fanned out first (by either server): that commit, landing between
    // B's two reads, would rightly empty B's cache and fail the control below.
    await waitFor(async () => !(await hasUnfannedEvents(a.server.db)), {
      timeoutMs: 10_000,
      what: "the authorization's event fanned out",
    });
    expect((await m.onB('GET', path)).body.status).toBe('CREATED');
    const hits = b.server.deps.readCache.stats.hits;
    expect((await m.onB('GET', path)).body.status).toBe('CREATED');
    // Positive control on SQLite: B gives that answer from memory (on PostgreSQL the cache is off).
    expect(b.server.deps.readCache.stats.hits).toBe(onPostgres ? 0 : hits + 1);
    const captured = await capture(a, authId, { amount: { currency_code: 'USD', value: '4.00' }, final_capture: false }, {}, m.token);
    expect(captured.status).toBe(200);
    const after = await m.onB('GET', path);
    expect(after.body.status).toBe('PARTIALLY_CAPTURED');
    expect((await m.onB('GET', `/v2/payments/captures/${captured.body.id}`)).body.amount.value).toBe('4.00');
  });

  it("shows on B's invoice list pages an invoice A made or deleted", async () => {
    const m = await merchant();
    const list = async () => (await m.onB('GET', '/v2/invoicing/invoices?total_required=true&page_size=5')).body;
    await createInvoice(a, simpleInvoice('1.00'), m.token);
    expect((await list()).total_items).toBe(1);
    const second = await createInvoice(a, simpleInvoice('2.00'), m.token);
    const listed = await list();
    expect(listed.total_items).toBe(2);
    expect(listed.items.map((item: { id: string }) => item.id)).toContain(second.id);
    expect((await m.onA('DELETE', `/v2/invoicing/invoices/${second.id}`)).status).toBe(204);
    const left = await list();
    expect(left.total_items).toBe(1);
    expect(left.items.map((item: { id: string }) => item.id)).not.toContain(second.id);
  });

  /** A capture of `authId` on B, with a request id of its own. */
  const captureOnB = (m: Awaited<ReturnType<typeof merchant>>, authId: string, value: unknown) =>
    m.onB('POST', `/v2/payments/authorizations/${authId}/capture`, {
      body: { amount: { currency_code: 'USD', value }, final_capture: false },
      headers: { 'paypal-request-id': randomUUID(), ...FULL },
    });
  const capturedMinor = async (authId: string) =>
    (await a.server.db.selectFrom('authorizations').select('captured_minor').where('id', '=', authId).executeTakeFirstOrThrow()).captured_minor;

  it('refuses on a server a write with a token deleted on A since that server last used it, committing nothing', async () => {
    const m = await merchant();
    const authId = await authorize(a, '10.00', 'USD', { token: m.token });
    // A server of its own, with the request journal on: the refusal's entry is checked below.
    const c = await startTestServer({ ...sameDatabase(a), journalSize: 100, journalFlushMs: 10 });
    try {
      const deleteTokens = () =>
        fromAnotherConnection(
          a,
          { sqlite: 'DELETE FROM access_tokens WHERE account_id = ?', postgres: 'DELETE FROM access_tokens WHERE account_id = $1' },
          [m.payer_id],
        );
      const captureOnC = (token: string, value: string, requestId: string = randomUUID()) =>
        on(c, token)('POST', `/v2/payments/authorizations/${authId}/capture`, {
          body: { amount: { currency_code: 'USD', value }, final_capture: false },
          headers: { 'paypal-request-id': requestId },
        });
      expect((await captureOnC(m.token, '1.00')).status).toBe(200);
      let before = { ...tokenStats(c.server.deps) };
      // C has read the token: on PostgreSQL its next capture starts on C's memory of it.
      expect((await captureOnC(m.token, '1.00')).status).toBe(200);
      expect(tokenStats(c.server.deps).confirmedInTransaction - before.confirmedInTransaction).toBe(onPostgres ? 1 : 0);
      await deleteTokens();
      // Refused before its transaction (a body the route rejects): the token is read before the answer.
      const earlyId = randomUUID();
      const early = await captureOnC(m.token, 'one dollar', earlyId);
      expect(early.status).toBe(401);
      expect(early.body.name).toBe('AUTHENTICATION_FAILURE');
      // The journal keeps the answer sent, not the one it replaced.
      let journaled: any;
      await waitFor(
        async () => {
          const listed = await httpRequest<any>(`${c.url}/_payctl/requests?request_id=${earlyId}`, 'GET', { token: c.adminKey });
          journaled = listed.body.items?.[0];
          return journaled !== undefined;
        },
        { timeoutMs: 10_000, what: "the refused capture's journal entry" },
      );
      expect(journaled.status).toBe(401);
      const detail = await httpRequest<any>(`${c.url}/_payctl/requests/${journaled.id}`, 'GET', { token: c.adminKey });
      expect(detail.body.response_body.name).toBe('AUTHENTICATION_FAILURE');
      // A new token, known to C, deleted before C's next capture: its transaction finds it gone.
      const token = await a.tokenFor(m.client_id, m.client_secret);
      expect((await captureOnC(token, '1.00')).status).toBe(200);
      await deleteTokens();
      before = { ...tokenStats(c.server.deps) };
      const refused = await captureOnC(token, '1.00');
      expect(refused.status).toBe(401);
      expect(refused.body.name).toBe('AUTHENTICATION_FAILURE');
      expect(tokenStats(c.server.deps).changedInTransaction - before.changedInTransaction).toBe(onPostgres ? 1 : 0);
      expect(await capturedMinor(authId)).toBe(300n);
    } finally {
      await c.close();
    }
  });

  it('runs a write on B on the clock and fault rules A changed since B last served the merchant', async () => {
    const m = await merchant();
    const authId = await authorize(a, '10.00', 'USD', { token: m.token });
    expect((await captureOnB(m, authId, '1.00')).status).toBe(200);
    const before = { ...tokenStats(b.server.deps) };
    expect((await m.onA('POST', '/_payctl/clock', { body: { advance_seconds: 2 * DAY_SECONDS } })).status).toBe(200);
    const later = await captureOnB(m, authId, '1.00');
    expect(later.status).toBe(200);
    expect(Date.parse(later.body.create_time) - Date.now()).toBeGreaterThan(1.5 * DAY_SECONDS * 1000);
    // On PostgreSQL B started on the old clock, found it moved before committing, and ran again.
    expect(tokenStats(b.server.deps).changedInTransaction - before.changedInTransaction).toBe(onPostgres ? 1 : 0);
    const rule = await m.onA('POST', '/_payctl/faults', {
      body: { method: 'POST', path: '/v2/payments/authorizations/*/capture', times: 1, respond: { status: 503 } },
    });
    expect(rule.status).toBe(201);
    expect((await captureOnB(m, authId, '1.00')).status).toBe(503);
    expect((await captureOnB(m, authId, '1.00')).status).toBe(200);
    expect(await capturedMinor(authId)).toBe(300n);
  });

  it('shows a clock moved on A to B at once: its clock, its payments reads', async () => {
    const m = await merchant();
    const authId = await authorize(a, '10.00', 'USD', { token: m.token });
    // B has read the authorization and knows the token and the clock before the move.
    expect((await m.onB('GET', `/v2/payments/authorizations/${authId}`)).body.status).toBe('CREATED');
    expect((await m.onB('GET', '/_payctl/clock')).body.offset_seconds).toBe(0);
    expect((await m.onA('POST', '/_payctl/clock', { body: { advance_seconds: 30 * DAY_SECONDS } })).status).toBe(200);
    expect((await m.onB('GET', '/_payctl/clock')).body.offset_seconds).toBe(30 * DAY_SECONDS);
    expect((await m.onB('GET', `/v2/payments/authorizations/${authId}`)).body.status).toBe('VOIDED');
    // A second move on B adds to the first (one relative update, not B's memory of the offset).
    expect((await m.onB('POST', '/_payctl/clock', { body: { advance_seconds: DAY_SECONDS } })).body.offset_seconds).toBe(31 * DAY_SECONDS);
    expect((await m.onA('GET', '/_payctl/clock')).body.offset_seconds).toBe(31 * DAY_SECONDS);
  });

  it("acts on B, through a platform's assertion, on the merchant's clock as A moved it", async () => {
    const m = await merchant();
    const platform = await a.createMerchant();
    const consent = await httpRequest(`${a.url}/_payctl/consents`, 'POST', {
      token: a.adminKey,
      body: { platform_client_id: platform.client_id, payer_id: m.payer_id },
    });
    expect(consent.status).toBe(201);
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const assertion = `${part({ alg: 'none' })}.${part({ iss: platform.client_id, payer_id: m.payer_id })}.`;
    const orderOnB = async () => {
      const made = await on(b, platform.token)('POST', '/v2/checkout/orders', {
        body: { intent: 'CAPTURE', purchase_units: [{ amount: { currency_code: 'USD', value: '1.00' } }] },
        headers: { 'paypal-auth-assertion': assertion, 'paypal-request-id': randomUUID(), ...FULL },
      });
      expect(made.status).toBe(201);
      return Date.parse(made.body.create_time);
    };
    // B acts for the merchant before the move (and so has met its clock)...
    expect(Math.abs((await orderOnB()) - Date.now())).toBeLessThan(DAY_SECONDS * 1000);
    expect((await m.onA('POST', '/_payctl/clock', { body: { advance_seconds: 10 * DAY_SECONDS } })).status).toBe(200);
    // ...and after it, on the merchant's clock as the database has it (ten days on).
    expect((await orderOnB()) - Date.now()).toBeGreaterThan(9 * DAY_SECONDS * 1000);
  });

  it("runs B's jobs on a clock another process moved", async () => {
    const m = await merchant();
    const authId = await authorize(a, '10.00', 'USD', { token: m.token });
    await b.server.deps.scheduler.runAll();
    expect((await m.onB('GET', `/v2/payments/authorizations/${authId}`)).body.status).toBe('CREATED');
    // What another replica's advance writes, from a connection of its own, without this process's jobs.
    await fromAnotherConnection(
      a,
      {
        sqlite: 'UPDATE accounts SET clock_offset_ms = clock_offset_ms + ? WHERE id = ?',
        postgres: 'UPDATE accounts SET clock_offset_ms = clock_offset_ms + $1 WHERE id = $2',
      },
      [30 * DAY_SECONDS * 1000, m.payer_id],
    );
    await b.server.deps.scheduler.runAll();
    const stored = await a.server.db.selectFrom('authorizations').select('status').where('id', '=', authId).executeTakeFirstOrThrow();
    expect(stored.status).toBe('VOIDED');
  });

  it('shows a reset on A to a server that knew the old clock and data', async () => {
    const m = await merchant();
    await m.onA('POST', '/_payctl/clock', { body: { advance_seconds: 5 * DAY_SECONDS } });
    // A server started after the move has read the clock (at start, and with the token).
    const c = await startTestServer(sameDatabase(a));
    try {
      const onC = on(c, m.token);
      const authId = await authorize(a, '10.00', 'USD', { token: m.token });
      expect((await onC('GET', `/v2/payments/authorizations/${authId}`)).status).toBe(200);
      expect((await onC('GET', `/v2/payments/authorizations/${authId}`)).status).toBe(200);
      expect((await onC('GET', '/_payctl/clock')).body.offset_seconds).toBe(5 * DAY_SECONDS);
      expect((await m.onA('POST', '/_payctl/reset', { body: {} })).status).toBe(200);
      expect((await onC('GET', `/v2/payments/authorizations/${authId}`)).status).toBe(404);
      expect((await onC('GET', '/_payctl/clock')).body.offset_seconds).toBe(0);
      // The clock C's requests run on is the database's too (an order's create_time is the account's now).
      const order = await onC('POST', '/v2/checkout/orders', {
        body: { intent: 'CAPTURE', purchase_units: [{ amount: { currency_code: 'USD', value: '1.00' } }] },
        headers: { 'paypal-request-id': randomUUID(), ...FULL },
      });
      expect(Math.abs(Date.parse(order.body.create_time) - Date.now())).toBeLessThan(DAY_SECONDS * 1000);
    } finally {
      await c.close();
    }
  });
});

describe('credentials rotated by another server', () => {
  it('refuses on B the old secret and the tokens issued under it', async () => {
    const b = await startTestServer({ ...CREDENTIALS, config: QUIET });
    try {
      const oldToken = b.merchant.token;
      // B knows the token (on SQLite its second use costs no query).
      expect((await on(b, oldToken)('GET', '/_payctl/whoami')).status).toBe(200);
      expect((await on(b, oldToken)('GET', '/_payctl/whoami')).status).toBe(200);
      if (onPostgres) {
        // A server starting with a new secret rotates it (bootstrap); on PostgreSQL in this process.
        const rotating = await startTestServer({ ...sameDatabase(b), clientSecret: 'rotated-secret' });
        await rotating.close();
      } else {
        // Another process: nothing in this one (a counter, a cache) can hear of it but the file.
        const rotating = await startServe({ dbPath: b.dbPath, credentials: { ...CREDENTIALS, clientSecret: 'rotated-secret' } });
        await rotating.kill('SIGTERM');
      }
      expect((await on(b, oldToken)('GET', '/_payctl/whoami')).status).toBe(401);
      await expect(b.tokenFor(CREDENTIALS.clientId, CREDENTIALS.clientSecret)).rejects.toThrow(/401/);
      const fresh = await b.tokenFor(CREDENTIALS.clientId, 'rotated-secret');
      expect((await on(b, fresh)('GET', '/_payctl/whoami')).status).toBe(200);
    } finally {
      await b.close();
    }
  });
});
