// The request journal over HTTP: what it records (secrets masked), retention, filters, paging,
// clearing and tenancy. Runs on SQLite and, in the PostgreSQL run, on PostgreSQL.

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpRequest, startTestServer, type Merchant, type TestServer } from '../helpers/server.js';
import { authorize, capture, usd } from './payments-helpers.js';

let t: TestServer;
let other: Merchant;

beforeAll(async () => {
  t = await startTestServer({ journalSize: 10_000 });
  other = await t.createMerchant();
});
afterAll(async () => {
  await t?.close();
});

const requests = (query = '', token?: string) => t.request('GET', `/_payctl/requests${query}`, token === undefined ? {} : { token });

describe('request journal', () => {
  it('records a request with its bodies, status, request id, times and merchant', async () => {
    const requestId = randomUUID();
    const order = await t.request('POST', '/v2/checkout/orders', {
      body: { intent: 'CAPTURE', purchase_units: [usd('12.34')] },
      headers: { 'service-request-id': requestId, prefer: 'return=representation' },
    });
    expect(order.status).toBe(201);
    const listed = await requests(`?request_id=${requestId}`);
    expect(listed.status).toBe(200);
    expect(listed.body.items).toHaveLength(1);
    const entry = listed.body.items[0];
    expect(entry).toMatchObject({
      account_id: t.merchant.payer_id,
      method: 'POST',
      path: '/v2/checkout/orders',
      query: '',
      status: 201,
      request_id: requestId,
      fault_id: null,
    });
    expect(entry.id).toMatch(/^req_\d+$/);
    expect(typeof entry.duration_ms).toBe('number');
    expect(Date.parse(entry.time)).toBeGreaterThan(Date.now() - 60_000);
    expect(Object.keys(entry).sort()).toEqual(
      ['account_id', 'account_time', 'duration_ms', 'fault_id', 'id', 'method', 'path', 'query', 'request_id', 'status', 'time'].sort(),
    );
    const detail = await t.request('GET', `/_payctl/requests/${entry.id}`);
    expect(detail.status).toBe(200);
    expect(detail.body.request_body).toEqual({ intent: 'CAPTURE', purchase_units: [usd('12.34')] });
    expect(detail.body.response_body.id).toBe(order.body.id);
    expect(detail.body.request_headers.authorization).toBe('Bearer [masked]');
    expect(detail.body.request_headers['service-request-id']).toBe(requestId);
  });

  it('keeps the account clock time beside the wall time', async () => {
    const m = await t.createMerchant();
    await t.advanceClock(86_400, m.token);
    await t.request('GET', '/_payctl/whoami', { token: m.token });
    const listed = await requests('?path=/_payctl/whoami', m.token);
    const entry = listed.body.items[0];
    const skew = Date.parse(entry.account_time) - Date.parse(entry.time);
    expect(skew).toBeGreaterThanOrEqual(86_400_000 - 1000);
    expect(skew).toBeLessThanOrEqual(86_400_000 + 1000);
  });

  it('masks the token, the client secret and assertions everywhere it stores them', async () => {
    const m = await t.createMerchant();
    // Token requests: Basic credentials, and the secret in a form body.
    const token = await t.tokenFor(m.client_id, m.client_secret);
    const formToken = await httpRequest(`${t.url}/v1/oauth2/token`, 'POST', {
      raw: `grant_type=client_credentials&client_id=${m.client_id}&client_secret=${m.client_secret}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    const secrets = [token, m.client_secret, m.token];
    if (formToken.status === 200) secrets.push(formToken.body.access_token);
    await t.request('GET', `/v2/checkout/orders/NOPE?access_token=${token}`, { token, headers: { 'service-auth-assertion': `x.${m.client_secret}.` } });
    const listed = await requests('', token);
    const paths = listed.body.items.map((item: { path: string }) => item.path);
    // Positive control: the token requests are there, attributed to the merchant by their client id.
    expect(paths).toContain('/v1/oauth2/token');
    const rows = await t.server.db.selectFrom('request_journal').selectAll().execute();
    const stored = JSON.stringify(rows, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));
    expect(stored).toContain(m.client_id);
    for (const secret of secrets) expect(stored).not.toContain(secret);
    expect(stored).not.toContain(t.adminKey);
    expect(stored).toContain('[masked]');
  });

  it('filters by method, path prefix and pattern, status and class, and since', async () => {
    const m = await t.createMerchant();
    const auth = await authorize(t, '10.00', 'USD', { token: m.token });
    expect((await capture(t, auth, usd('1.00'), {}, m.token)).status).toBe(200);
    await t.request('GET', '/v2/payments/captures/NOPE', { token: m.token });
    const get = (query: string) => requests(query, m.token).then((r) => r.body.items as Array<{ method: string; path: string; status: number }>);
    const all = await get('');
    expect(all.length).toBeGreaterThanOrEqual(4);
    expect((await get('?method=post')).every((e) => e.method === 'POST')).toBe(true);
    expect((await get('?method=GET')).map((e) => e.path)).toEqual(['/v2/payments/captures/NOPE']);
    expect((await get('?path=/v2/payments')).map((e) => e.path)).toEqual([`/v2/payments/captures/NOPE`, `/v2/payments/authorizations/${auth}/capture`]);
    expect((await get('?path=/v2/checkout/orders/*/authorize')).map((e) => e.path)).toHaveLength(1);
    expect((await get('?path=/v2/checkout/*')).map((e) => e.path)).toEqual(['/v2/checkout/orders']);
    expect(await get('?path=/v2/*')).toEqual([]);
    expect((await get('?status=404')).map((e) => e.status)).toEqual([404]);
    expect((await get('?status=4xx')).map((e) => e.status)).toEqual([404]);
    expect((await get('?status=2xx')).every((e) => e.status >= 200 && e.status < 300)).toBe(true);
    expect(await get(`?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).toEqual([]);
    expect((await requests('?status=4x', m.token)).status).toBe(400);
    expect((await requests('?since=yesterday', m.token)).status).toBe(400);
  });

  it('pages back with before and follows with after (oldest first)', async () => {
    const m = await t.createMerchant();
    for (let index = 0; index < 5; index++) await t.request('GET', `/v2/payments/captures/P${index}`, { token: m.token });
    const page = (query: string) => requests(`?path=/v2/payments/captures/P&${query}`, m.token);
    const first = await page('page_size=2');
    expect(first.body.items.map((e: { path: string }) => e.path)).toEqual(['/v2/payments/captures/P4', '/v2/payments/captures/P3']);
    expect(first.body.next_before).toBe(first.body.items[1].id);
    const second = await page(`page_size=2&before=${first.body.next_before}`);
    expect(second.body.items.map((e: { path: string }) => e.path)).toEqual(['/v2/payments/captures/P2', '/v2/payments/captures/P1']);
    const third = await page(`page_size=2&before=${second.body.next_before}`);
    expect(third.body.items.map((e: { path: string }) => e.path)).toEqual(['/v2/payments/captures/P0']);
    expect(third.body.next_before).toBeNull();
    const since = await page(`after=${second.body.items[0].id}`);
    expect(since.body.items.map((e: { path: string }) => e.path)).toEqual(['/v2/payments/captures/P3', '/v2/payments/captures/P4']);
    await t.request('GET', '/v2/payments/captures/P5', { token: m.token });
    const followed = await page(`after=${since.body.items[1].id}`);
    expect(followed.body.items.map((e: { path: string }) => e.path)).toEqual(['/v2/payments/captures/P5']);
    expect((await requests('?after=42', m.token)).status).toBe(400);
  });

  it("shows a merchant only its own entries; the admin key sees everyone's", async () => {
    await t.request('GET', '/v2/payments/captures/MINE-ONLY');
    const theirs = await requests('?path=/v2/payments/captures/MINE-ONLY', other.token);
    expect(theirs.body.items).toEqual([]);
    const mine = await requests('?path=/v2/payments/captures/MINE-ONLY');
    expect(mine.body.items).toHaveLength(1);
    expect((await t.request('GET', `/_payctl/requests/${mine.body.items[0].id}`, { token: other.token })).status).toBe(404);
    const admin = await requests('?path=/v2/payments/captures/MINE-ONLY', t.adminKey);
    expect(admin.body.items).toHaveLength(1);
    const adminOther = await requests(`?account_id=${other.payer_id}&path=/v2/payments/captures/MINE-ONLY`, t.adminKey);
    expect(adminOther.body.items).toEqual([]);
  });

  it('records the answers the read cache gives before any hook runs', async () => {
    const m = await t.createMerchant();
    const auth = await authorize(t, '10.00', 'USD', { token: m.token });
    const captureId = (await capture(t, auth, usd('1.00'), {}, m.token)).body.id as string;
    const hitsBefore = t.server.deps.readCache.stats.hits;
    for (let index = 0; index < 10; index++) {
      expect((await t.request('GET', `/v2/payments/captures/${captureId}`, { token: m.token })).status).toBe(200);
    }
    // Positive control (SQLite, where the cache is on): some of those were kept answers.
    if (t.server.deps.storage.processCaches) expect(t.server.deps.readCache.stats.hits).toBeGreaterThan(hitsBefore);
    const entries = (await requests(`?path=/v2/payments/captures/${captureId}`, m.token)).body.items;
    expect(entries.map((e: { status: number }) => e.status)).toEqual(Array(10).fill(200));
    const detail = (await t.request('GET', `/_payctl/requests/${entries[0].id}`, { token: m.token })).body;
    expect(detail.response_body.id).toBe(captureId);
    expect(detail.request_headers.authorization).toBe('Bearer [masked]');
  });

  it('does not journal reading the journal, nor the health probe', async () => {
    const m = await t.createMerchant();
    await requests('', m.token);
    await t.request('GET', '/_payctl/health', { token: null });
    await t.request('GET', '/_payctl/whoami', { token: m.token });
    const paths = (await requests('', m.token)).body.items.map((e: { path: string }) => e.path);
    // The merchant's token request (attributed by its client id), then whoami: nothing else.
    expect(paths).toEqual(['/_payctl/whoami', '/v1/oauth2/token']);
  });

  it("DELETE clears the caller's entries only", async () => {
    const m = await t.createMerchant();
    await t.request('GET', '/v2/payments/captures/GONE', { token: m.token });
    await t.request('GET', '/v2/payments/captures/STAYS', { token: other.token });
    expect((await requests('', m.token)).body.items.length).toBeGreaterThan(0);
    expect((await t.request('DELETE', '/_payctl/requests', { token: m.token })).status).toBe(204);
    expect((await requests('', m.token)).body.items).toEqual([]);
    expect((await requests('?path=/v2/payments/captures/STAYS', other.token)).body.items).toHaveLength(1);
  });

  it('records a multipart body by its type and size, and caps a large body', async () => {
    const big = 'x'.repeat(100_000);
    await t.request('POST', '/v2/checkout/orders', { body: { intent: 'CAPTURE', purchase_units: [{ ...usd('1.00'), description: big }] } });
    const entry = (await requests('?method=POST&page_size=1')).body.items[0];
    const detail = (await t.request('GET', `/_payctl/requests/${entry.id}`)).body;
    expect(detail.request_body_truncated).toBe(true);
    expect(typeof detail.request_body).toBe('string');
    expect(Buffer.byteLength(detail.request_body)).toBeLessThanOrEqual(64 * 1024);
    const boundary = 'XyZ';
    const multipart = `--${boundary}\r\nContent-Disposition: form-data; name="input"\r\n\r\n{}\r\n--${boundary}--\r\n`;
    await t.request('POST', '/v1/customer/disputes/PP-D-NOPE/provide-evidence', {
      raw: multipart,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    const upload = (await requests('?path=/v1/customer/disputes&page_size=1')).body.items[0];
    const uploadDetail = (await t.request('GET', `/_payctl/requests/${upload.id}`)).body;
    expect(uploadDetail.request_body).toBeNull();
    expect(uploadDetail.request_body_info).toEqual({ content_type: `multipart/form-data; boundary=${boundary}`, bytes: Buffer.byteLength(multipart) });
  });
});

describe('request journal retention and switches', () => {
  it('keeps the last N entries per merchant', async () => {
    const small = await startTestServer({ journalSize: 3 });
    try {
      const m = await small.createMerchant();
      for (let index = 0; index < 6; index++) await small.request('GET', `/v2/payments/captures/R${index}`);
      await small.request('GET', '/v2/payments/captures/THEIRS', { token: m.token });
      const listed = await small.request('GET', '/_payctl/requests?path=/v2/payments');
      expect(listed.body.items.map((e: { path: string }) => e.path)).toEqual(['/v2/payments/captures/R5', '/v2/payments/captures/R4', '/v2/payments/captures/R3']);
      const count = await small.server.db
        .selectFrom('request_journal')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('account_id', '=', small.merchant.payer_id)
        .executeTakeFirstOrThrow();
      expect(Number(count.n)).toBe(3);
      // Another merchant's entries are not pruned by this one's.
      expect((await small.request('GET', '/_payctl/requests?path=/v2', { token: m.token })).body.items.map((e: { path: string }) => e.path)).toEqual([
        '/v2/payments/captures/THEIRS',
      ]);
    } finally {
      await small.close();
    }
  });

  it('records nothing without a journal (--no-journal)', async () => {
    const off = await startTestServer({ journalSize: 0 });
    try {
      await off.request('GET', '/v2/payments/captures/OFF');
      expect((await off.request('GET', '/_payctl/requests')).body).toEqual({ items: [], next_before: null });
      // Positive control: the same request on a journaled server is listed (the first describe).
      expect(t.server.deps.storage.dialect).toBe(off.server.deps.storage.dialect);
    } finally {
      await off.close();
    }
  });

  it('writes what is pending when the server closes', async () => {
    // A batch that is not full waits a minute: only close() can write this one.
    const closing = await startTestServer({ journalSize: 100, journalFlushMs: 60_000 });
    const path = `/v2/payments/captures/LAST-${randomUUID()}`;
    await closing.request('GET', path);
    const db = closing.dbPath;
    await closing.server.close();
    // The journal was flushed by close(): reopen the database and look.
    const { openStorageAt } = await import('../helpers/postgres.js');
    if (db === ':memory:') return;
    const storage = await openStorageAt(db);
    try {
      const rows = await storage.db.selectFrom('request_journal').select('path').where('path', '=', path).execute();
      expect(rows).toHaveLength(1);
    } finally {
      await storage.close();
      await closing.close().catch(() => undefined);
    }
  });
});
