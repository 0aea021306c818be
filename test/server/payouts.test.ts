// Payouts over HTTP: create, read, limits, duplicates, replay, balance, processing, cancel, returns, tenancy.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type Merchant, type TestServer } from '../helpers/server.js';

type Item = Record<string, unknown>;

const usd = (value: string) => ({ currency: 'USD', value });
const emailItem = (receiver: string, value = '10.00', extra: Item = {}): Item => ({ receiver, amount: usd(value), ...extra });

let s: TestServer;
let bob: Merchant;
let seq = 0;

/** Processing runs only when the test says so (or the clock moves), so statuses are deterministic. */
async function settle(): Promise<void> {
  await s.server.deps.scheduler.runAll();
}

async function topUp(value: string, currency = 'USD', token?: string): Promise<void> {
  const result = await s.request('POST', '/_payctl/balances', { body: { currency, value }, ...(token ? { token } : {}) });
  expect(result.status).toBe(200);
}

async function balance(currency = 'USD', token?: string): Promise<string> {
  const result = await s.request('GET', '/_payctl/balances', token ? { token } : {});
  expect(result.status).toBe(200);
  return (result.body.balances as Array<{ currency: string; value: string }>).find((entry) => entry.currency === currency)?.value ?? '0.00';
}

async function create(items: Item[], header: Item = {}, options: { headers?: Record<string, string>; token?: string } = {}) {
  seq += 1;
  return s.request('POST', '/v1/payments/payouts', {
    body: { sender_batch_header: { sender_batch_id: `batch-${seq}`, recipient_type: 'EMAIL', ...header }, items },
    ...options,
  });
}

async function createOk(items: Item[], header: Item = {}): Promise<string> {
  const result = await create(items, header);
  expect(result.status, result.text).toBe(201);
  return result.body.batch_header.payout_batch_id as string;
}

async function getBatch(id: string, query = '', token?: string) {
  return s.request('GET', `/v1/payments/payouts/${id}${query}`, token ? { token } : {});
}

async function eventTypes(resourceId: string): Promise<string[]> {
  const rows = await s.server.db.selectFrom('events').select(['event_type', 'seq']).where('resource_id', '=', resourceId).orderBy('seq').execute();
  return rows.map((row) => row.event_type);
}

beforeAll(async () => {
  s = await startTestServer({ memory: true, config: { jobIntervalMs: 3_600_000 } });
  bob = await s.createMerchant('bob@example.com');
});
afterAll(async () => {
  await s.close();
});

describe('create and read a batch', () => {
  it('answers 201 PENDING with the header and a self link, then processes it to SUCCESS', async () => {
    await topUp('100.00');
    const before = await balance();
    const result = await create([
      emailItem('BOB@example.com', '10.00', { note: 'thanks', sender_item_id: 'a-1', purpose: 'GOODS' }),
      emailItem('stranger@example.com', '5.00'),
      { receiver: bob.payer_id, recipient_type: 'PAYPAL_ID', amount: usd('2.50') },
    ], { email_subject: 'You have a payout' });
    expect(result.status).toBe(201);
    const id = result.body.batch_header.payout_batch_id as string;
    expect(id).toMatch(/^[0-9A-Z]{13}$/);
    expect(result.body.batch_header).toMatchObject({
      batch_status: 'PENDING',
      sender_batch_header: { sender_batch_id: `batch-${seq}`, recipient_type: 'EMAIL', email_subject: 'You have a payout' },
    });
    expect(result.body.links).toEqual([{ href: `${s.url}/v1/payments/payouts/${id}`, rel: 'self', method: 'GET' }]);

    const pending = await getBatch(id);
    expect(pending.body.batch_header).toMatchObject({ batch_status: 'PENDING', amount: usd('17.50'), fees: usd('0.00') });
    expect(pending.body.items.map((item: Item) => item.transaction_status)).toEqual(['PENDING', 'PENDING', 'PENDING']);

    await settle();
    const done = await getBatch(id);
    expect(done.status).toBe(200);
    // Fees: 2% of 10.00, 5.00 and 2.50.
    expect(done.body.batch_header).toMatchObject({ batch_status: 'SUCCESS', funding_source: 'BALANCE', amount: usd('17.50'), fees: usd('0.35') });
    expect(done.body.batch_header.time_completed).toMatch(/Z$/);
    const [paid, unclaimed, byId] = done.body.items as [Record<string, any>, Record<string, any>, Record<string, any>];
    expect(paid).toMatchObject({
      transaction_status: 'SUCCESS',
      payout_item_fee: usd('0.20'),
      payout_batch_id: id,
      payout_item: { recipient_type: 'EMAIL', receiver: 'BOB@example.com', amount: usd('10.00'), note: 'thanks', sender_item_id: 'a-1', purpose: 'GOODS', recipient_wallet: 'PAYPAL' },
    });
    expect(paid.transaction_id).toMatch(/^[0-9A-Z]{17}$/);
    expect(paid.errors).toBeUndefined();
    expect(unclaimed).toMatchObject({ transaction_status: 'UNCLAIMED', payout_item_fee: usd('0.10'), errors: { name: 'RECEIVER_UNREGISTERED' } });
    expect(byId).toMatchObject({ transaction_status: 'SUCCESS', payout_item_fee: usd('0.05') });
    // 17.50 paid plus 0.35 fees.
    expect(await balance()).toBe((Number(before) - 17.85).toFixed(2));

    expect(await eventTypes(id)).toEqual(['PAYMENT.PAYOUTSBATCH.PROCESSING', 'PAYMENT.PAYOUTSBATCH.SUCCESS']);
    expect(await eventTypes(paid.payout_item_id)).toEqual(['PAYMENT.PAYOUTS-ITEM.SUCCEEDED']);
    expect(await eventTypes(unclaimed.payout_item_id)).toEqual(['PAYMENT.PAYOUTS-ITEM.UNCLAIMED']);
  });

  it('shows one item with its batch and sender_batch_id', async () => {
    await topUp('10.00');
    const id = await createOk([emailItem('bob@example.com', '1.00')], { sender_batch_id: 'item-view' });
    await settle();
    const itemId = (await getBatch(id)).body.items[0].payout_item_id as string;
    const item = await s.request('GET', `/v1/payments/payouts-item/${itemId}`);
    expect(item.status).toBe(200);
    expect(item.body).toMatchObject({ payout_item_id: itemId, payout_batch_id: id, sender_batch_id: 'item-view', transaction_status: 'SUCCESS' });
    expect(item.body.links).toEqual([
      { href: `${s.url}/v1/payments/payouts-item/${itemId}`, rel: 'self', method: 'GET' },
      { href: `${s.url}/v1/payments/payouts/${id}`, rel: 'batch', method: 'GET' },
    ]);
  });

  it('pages through items with navigation links, totals on request, and fields', async () => {
    await topUp('10.00');
    const id = await createOk(['a', 'b', 'c', 'd', 'e'].map((name, i) => emailItem(`${name}@example.com`, '1.00', { sender_item_id: `p-${i}` })));
    const first = await getBatch(id, '?page=1&page_size=2&total_required=true');
    expect(first.body.total_items).toBe(5);
    expect(first.body.total_pages).toBe(3);
    expect(first.body.items.map((item: any) => item.payout_item.sender_item_id)).toEqual(['p-0', 'p-1']);
    const rels = (page: any) => page.body.links.map((entry: any) => entry.rel);
    expect(rels(first)).toEqual(['self', 'first', 'next', 'last']);
    expect(first.body.links[2].href).toBe(`${s.url}/v1/payments/payouts/${id}?page=2&page_size=2&total_required=true`);
    const last = await getBatch(id, '?page=3&page_size=2');
    expect(last.body.total_items).toBeUndefined();
    expect(last.body.items.map((item: any) => item.payout_item.sender_item_id)).toEqual(['p-4']);
    expect(rels(last)).toEqual(['self', 'first', 'previous', 'last']);
    expect((await getBatch(id, '?page=4&page_size=2')).body.items).toEqual([]);
    expect((await getBatch(id, '?page_size=0')).body.items).toEqual([]);
    const headerOnly = await getBatch(id, '?fields=batch_header');
    expect(headerOnly.body.items).toBeUndefined();
    expect(headerOnly.body.batch_header.payout_batch_id).toBe(id);
    const itemsOnly = await getBatch(id, '?fields=items');
    expect(itemsOnly.body.batch_header).toBeUndefined();
    expect(itemsOnly.body.items).toHaveLength(5);
  });

  it.each([
    ['?page_size=1001', '/page_size', 'INVALID_INTEGER_MAX_VALUE'],
    ['?page=1001', '/page', 'INVALID_INTEGER_MAX_VALUE'],
    ['?page=-1', '/page', 'INVALID_INTEGER_MIN_VALUE'],
    ['?page=x', '/page', 'INVALID_PARAMETER_SYNTAX'],
    ['?total_required=yes', '/total_required', 'INVALID_PARAMETER_VALUE'],
    ['?fields=everything', '/fields', 'INVALID_PARAMETER_VALUE'],
  ])('refuses the query %s', async (query, field, issue) => {
    const id = await createOk([emailItem('q@example.com', '1.00')]);
    const result = await getBatch(id, query);
    expect(result.status).toBe(400);
    expect(result.body.name).toBe('INVALID_REQUEST');
    expect(result.body.details[0]).toMatchObject({ field, issue, location: 'query' });
  });

  it('answers unknown ids with RESOURCE_NOT_FOUND in the generic error shape', async () => {
    const batch = await getBatch('NOSUCHBATCH00');
    expect(batch.status).toBe(404);
    expect(batch.body).toMatchObject({ name: 'RESOURCE_NOT_FOUND', details: [{ issue: 'INVALID_RESOURCE_ID', value: 'NOSUCHBATCH00', location: 'path' }] });
    expect(typeof batch.body.debug_id).toBe('string');
    expect(batch.body.information_link).toMatch(/^https:\/\//);
    expect((await s.request('GET', '/v1/payments/payouts-item/NOSUCHITEM')).status).toBe(404);
    expect((await s.request('POST', '/v1/payments/payouts-item/NOSUCHITEM/cancel')).status).toBe(404);
    const tooLong = await s.request('GET', `/v1/payments/payouts-item/${'X'.repeat(33)}`);
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.details[0]).toMatchObject({ field: '/payout_item_id', issue: 'INVALID_STRING_MAX_LENGTH', location: 'path' });
  });
});

describe('validation and limits', () => {
  it('accepts 15000 items and refuses 15001 with INVALID_ARRAY_MAX_ITEMS', async () => {
    // A merchant of its own, reset afterwards, so that later processing passes skip this batch.
    const frank = await s.createMerchant('frank@example.com');
    const items = (count: number) => Array.from({ length: count }, (_, i) => emailItem(`r${i}@example.com`, '0.01'));
    const accepted = await create(items(15_000), {}, { token: frank.token });
    expect(accepted.status).toBe(201);
    const count = await s.server.db
      .selectFrom('payout_items')
      .select((eb) => eb.fn.countAll<bigint>().as('n'))
      .where('batch_id', '=', accepted.body.batch_header.payout_batch_id)
      .executeTakeFirstOrThrow();
    expect(count.n).toBe(15_000n);
    expect((await s.request('POST', '/_payctl/reset', { token: frank.token, body: {} })).status).toBe(200);
    const refused = await create(items(15_001));
    expect(refused.status).toBe(400);
    expect(refused.body.details).toEqual([expect.objectContaining({ field: '/items', issue: 'INVALID_ARRAY_MAX_ITEMS' })]);
    const empty = await create([]);
    expect(empty.body.details).toEqual([expect.objectContaining({ field: '/items', issue: 'INVALID_ARRAY_MIN_ITEMS' })]);
  });

  it('names every bad item by its JSON pointer, at once', async () => {
    const result = await s.request('POST', '/v1/payments/payouts', {
      body: {
        sender_batch_header: {
          sender_batch_id: 'x'.repeat(257),
          email_subject: 's'.repeat(256),
          email_message: 'm'.repeat(1001),
          recipient_type: 'FAX',
        },
        items: [
          emailItem('ok@example.com', '1.00', { recipient_type: 'EMAIL' }),
          { receiver: 'r'.repeat(128), recipient_type: 'PHONE', amount: usd('1.00') },
          emailItem('n@example.com', '1.00', { recipient_type: 'EMAIL', note: 'n'.repeat(4001) }),
          emailItem('u@example.com', '1.00', { recipient_type: 'EMAIL', note: 'é'.repeat(1001) }),
          emailItem('i@example.com', '1.00', { recipient_type: 'EMAIL', sender_item_id: 'i'.repeat(64) }),
          emailItem('d@example.com', '1.001', { recipient_type: 'EMAIL' }),
          { receiver: 'j@example.com', recipient_type: 'EMAIL', amount: { currency: 'JPY', value: '1.5' } },
          emailItem('z@example.com', '0.00', { recipient_type: 'EMAIL' }),
          emailItem('neg@example.com', '-1.00', { recipient_type: 'EMAIL' }),
          { receiver: 'c@example.com', recipient_type: 'EMAIL', amount: { currency: 'XYZ', value: '1.00' } },
          emailItem('big@example.com', '1234567890123456.00', { recipient_type: 'EMAIL' }),
          emailItem('not-an-email', '1.00', { recipient_type: 'EMAIL' }),
          emailItem('missing-type@example.com', '1.00'),
          { recipient_type: 'EMAIL', amount: usd('1.00') },
          { receiver: 'w@example.com', recipient_type: 'EMAIL', amount: usd('1.00'), recipient_wallet: 'BANK' },
          { receiver: 'BADID', recipient_type: 'PAYPAL_ID', amount: usd('1.00') },
        ],
      },
    });
    expect(result.status).toBe(400);
    expect(result.body.name).toBe('INVALID_REQUEST');
    const found = (result.body.details as Array<{ field: string; issue: string }>).map((detail) => `${detail.field} ${detail.issue}`).sort();
    expect(found).toEqual(
      [
        '/sender_batch_header/sender_batch_id INVALID_STRING_MAX_LENGTH',
        '/sender_batch_header/email_subject INVALID_STRING_MAX_LENGTH',
        '/sender_batch_header/email_message INVALID_STRING_MAX_LENGTH',
        '/sender_batch_header/recipient_type INVALID_PARAMETER_VALUE',
        '/items/1/receiver INVALID_STRING_MAX_LENGTH',
        '/items/2/note INVALID_STRING_MAX_LENGTH',
        '/items/3/note INVALID_STRING_MAX_LENGTH',
        '/items/4/sender_item_id INVALID_STRING_MAX_LENGTH',
        '/items/5/amount/value DECIMAL_PRECISION',
        '/items/6/amount/value DECIMALS_NOT_SUPPORTED',
        '/items/7/amount/value CANNOT_BE_ZERO_OR_NEGATIVE',
        '/items/8/amount/value CANNOT_BE_ZERO_OR_NEGATIVE',
        '/items/9/amount/currency CURRENCY_NOT_SUPPORTED',
        '/items/10/amount/value MAX_VALUE_EXCEEDED',
        '/items/11/receiver INVALID_PARAMETER_SYNTAX',
        '/items/12/recipient_type MISSING_REQUIRED_PARAMETER',
        '/items/13/receiver MISSING_REQUIRED_PARAMETER',
        '/items/14/recipient_wallet INVALID_PARAMETER_VALUE',
        '/items/15/receiver INVALID_PARAMETER_SYNTAX',
      ].sort(),
    );
    expect(await s.server.db.selectFrom('payout_batches').select('id').where('sender_batch_id', '=', 'x'.repeat(257)).execute()).toEqual([]);
  });

  it('accepts the longest allowed fields exactly at their limits', async () => {
    const result = await create(
      [emailItem(`${'a'.repeat(64)}@${'b'.repeat(58)}.com`, '999999999999999.99', { note: 'n'.repeat(4000), sender_item_id: 'i'.repeat(63) })],
      { sender_batch_id: 'x'.repeat(256), email_subject: 's'.repeat(255), email_message: 'm'.repeat(1000) },
    );
    expect(result.status, result.text).toBe(201);
  });
});

describe('sender_batch_id and request ids', () => {
  it('refuses a sender_batch_id used within 30 days, naming the earlier batch, and takes it after', async () => {
    const firstId = await createOk([emailItem('d1@example.com', '1.00')], { sender_batch_id: 'dup-1' });
    await s.advanceClock(29 * 86_400);
    const again = await create([emailItem('d2@example.com', '2.00')], { sender_batch_id: 'dup-1' });
    expect(again.status).toBe(400);
    expect(again.body.name).toBe('USER_BUSINESS_ERROR');
    expect(again.body.details[0]).toMatchObject({
      field: '/sender_batch_header/sender_batch_id',
      value: 'dup-1',
      issue: 'SENDER_BATCH_ID_ALREADY_USED',
    });
    expect(again.body.details[0].description).toContain(firstId);
    expect(again.body.links).toContainEqual({ href: `${s.url}/v1/payments/payouts/${firstId}`, rel: 'self', method: 'GET' });
    expect(again.body.information_link).toMatch(/^https:\/\//);
    // Another merchant has its own sender_batch_id space.
    expect((await create([emailItem('d3@example.com', '1.00')], { sender_batch_id: 'dup-1' }, { token: bob.token })).status).toBe(201);
    await s.advanceClock(86_400 + 1);
    expect((await create([emailItem('d4@example.com', '1.00')], { sender_batch_id: 'dup-1' })).status).toBe(201);
  });

  it('replays a create with the same Service-Request-Id, and refuses the id with other content', async () => {
    const body = { sender_batch_header: { sender_batch_id: 'replay-1', recipient_type: 'EMAIL' }, items: [emailItem('rp@example.com', '3.00')] };
    const headers = { 'Service-Request-Id': 'req-replay-1' };
    const first = await s.request('POST', '/v1/payments/payouts', { body, headers });
    const second = await s.request('POST', '/v1/payments/payouts', { body, headers });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    const rows = await s.server.db.selectFrom('payout_batches').select('id').where('sender_batch_id', '=', 'replay-1').execute();
    expect(rows).toHaveLength(1);
    const other = await s.request('POST', '/v1/payments/payouts', {
      body: { ...body, items: [emailItem('rp@example.com', '4.00')] },
      headers,
    });
    expect(other.status).toBe(422);
    expect(other.body.details[0].issue).toBe('DUPLICATE_REQUEST_ID');
    const legacy = await s.request('POST', '/v1/payments/payouts', { body, headers: { 'PayPal-Request-Id': 'req-replay-1' } });
    expect(legacy.body).toEqual(first.body);
  });
});

describe('balance', () => {
  it('denies a batch the balance cannot cover, fees included, and pays one it exactly covers', async () => {
    const carol = await s.createMerchant('carol@example.com');
    await topUp('10.00', 'USD', carol.token);
    const items = [emailItem('bob@example.com', '5.00'), emailItem('new@example.com', '5.00')];
    const deny = await create(items, {}, { token: carol.token });
    await settle();
    const denied = await getBatch(deny.body.batch_header.payout_batch_id, '', carol.token);
    expect(denied.body.batch_header.batch_status).toBe('DENIED');
    expect(denied.body.items.map((item: any) => [item.transaction_status, item.errors?.name])).toEqual([
      ['FAILED', 'INSUFFICIENT_FUNDS'],
      ['FAILED', 'INSUFFICIENT_FUNDS'],
    ]);
    expect(await balance('USD', carol.token)).toBe('10.00');
    expect(await eventTypes(deny.body.batch_header.payout_batch_id)).toEqual(['PAYMENT.PAYOUTSBATCH.DENIED']);

    await topUp('0.20', 'USD', carol.token);
    const pay = await create(items, {}, { token: carol.token });
    await settle();
    const paid = await getBatch(pay.body.batch_header.payout_batch_id, '', carol.token);
    expect(paid.body.batch_header.batch_status).toBe('SUCCESS');
    expect(await balance('USD', carol.token)).toBe('0.00');
  });

  it('checks each currency of a mixed batch on its own and shows no header total for it', async () => {
    const dave = await s.createMerchant('dave@example.com');
    await topUp('1000', 'JPY', dave.token);
    const mixed = await create(
      [{ receiver: 'bob@example.com', amount: { currency: 'JPY', value: '500' } }, emailItem('bob@example.com', '1.00')],
      {},
      { token: dave.token },
    );
    await settle();
    const denied = await getBatch(mixed.body.batch_header.payout_batch_id, '', dave.token);
    expect(denied.body.batch_header.batch_status).toBe('DENIED');
    expect(denied.body.batch_header.amount).toBeUndefined();
    await topUp('1.02', 'USD', dave.token);
    const retried = await create(
      [{ receiver: 'bob@example.com', amount: { currency: 'JPY', value: '500' } }, emailItem('bob@example.com', '1.00')],
      {},
      { token: dave.token },
    );
    await settle();
    expect((await getBatch(retried.body.batch_header.payout_batch_id, '', dave.token)).body.batch_header.batch_status).toBe('SUCCESS');
    // 500 JPY + 2% (10 JPY); 1.00 USD + 0.02.
    expect(await balance('JPY', dave.token)).toBe('490');
    expect(await balance('USD', dave.token)).toBe('0.00');
  });

  it.each([
    [{ currency: 'USD', value: '0' }, '/value', 'CANNOT_BE_ZERO_OR_NEGATIVE'],
    [{ currency: 'USD', value: '1.005' }, '/value', 'DECIMAL_PRECISION'],
    [{ currency: 'XYZ', value: '1' }, '/currency', 'CURRENCY_NOT_SUPPORTED'],
    [{ currency: 'usd', value: '1' }, '/currency', 'INVALID_PARAMETER_SYNTAX'],
    [{ value: '1' }, '/currency', 'MISSING_REQUIRED_PARAMETER'],
  ])('refuses the top-up %j', async (body, field, issue) => {
    const result = await s.request('POST', '/_payctl/balances', { body });
    expect(result.status).toBe(400);
    expect(result.body.details[0]).toMatchObject({ field, issue });
  });

  it('tops up once per request id', async () => {
    const erin = await s.createMerchant('erin@example.com');
    const send = () =>
      s.request('POST', '/_payctl/balances', { body: { currency: 'EUR', value: '7.50' }, token: erin.token, headers: { 'Service-Request-Id': 'top-1' } });
    expect((await send()).body.balances).toEqual([{ currency: 'EUR', value: '7.50' }]);
    expect((await send()).body.balances).toEqual([{ currency: 'EUR', value: '7.50' }]);
    expect(await balance('EUR', erin.token)).toBe('7.50');
  });
});

describe('items after processing', () => {
  it('cancels only an UNCLAIMED item: it becomes RETURNED and its money comes back', async () => {
    await topUp('50.00');
    const id = await createOk([emailItem('gone@example.com', '20.00'), emailItem('bob@example.com', '1.00')]);
    const pendingItem = (await getBatch(id)).body.items[0].payout_item_id as string;
    const early = await s.request('POST', `/v1/payments/payouts-item/${pendingItem}/cancel`);
    expect(early.status).toBe(422);
    expect(early.body.details[0]).toMatchObject({ issue: 'ITEM_INCORRECT_STATUS', value: 'PENDING' });

    await settle();
    const afterPaying = await balance();
    const [unclaimed, paid] = (await getBatch(id)).body.items as [Record<string, any>, Record<string, any>];
    expect(unclaimed.transaction_status).toBe('UNCLAIMED');
    const cancelled = await s.request('POST', `/v1/payments/payouts-item/${unclaimed.payout_item_id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ payout_item_id: unclaimed.payout_item_id, transaction_status: 'RETURNED', payout_item_fee: usd('0.00') });
    // 20.00 and its 0.40 fee come back.
    expect(await balance()).toBe((Number(afterPaying) + 20.4).toFixed(2));
    expect(await eventTypes(unclaimed.payout_item_id)).toEqual(['PAYMENT.PAYOUTS-ITEM.UNCLAIMED', 'PAYMENT.PAYOUTS-ITEM.CANCELED']);

    for (const itemId of [unclaimed.payout_item_id, paid.payout_item_id]) {
      const refused = await s.request('POST', `/v1/payments/payouts-item/${itemId}/cancel`);
      expect(refused.status).toBe(422);
      expect(refused.body.name).toBe('UNPROCESSABLE_ENTITY');
      expect(refused.body.details[0].description).toContain('allowed only from: UNCLAIMED');
    }
    expect(await balance()).toBe((Number(afterPaying) + 20.4).toFixed(2));
  });

  it('returns an UNCLAIMED item after 30 days on its sender\'s clock, not before', async () => {
    const gina = await s.createMerchant('gina@example.com');
    await topUp('10.00', 'USD', gina.token);
    const created = await create([emailItem('later-never@example.com', '4.00')], {}, { token: gina.token });
    await settle();
    const id = created.body.batch_header.payout_batch_id as string;
    const itemId = (await getBatch(id, '', gina.token)).body.items[0].payout_item_id as string;
    const item = () => s.request('GET', `/v1/payments/payouts-item/${itemId}`, { token: gina.token });
    // Tokens expire on the account's clock: renew after each jump.
    const advance = async (seconds: number) => {
      await s.advanceClock(seconds, gina.token);
      gina.token = await s.tokenFor(gina.client_id, gina.client_secret);
    };
    expect(await balance('USD', gina.token)).toBe('5.92');
    await s.advanceClock(30 * 86_400);
    // Another merchant's clock moved: not this one.
    expect((await item()).body.transaction_status).toBe('UNCLAIMED');
    await advance(29 * 86_400);
    expect((await item()).body.transaction_status).toBe('UNCLAIMED');
    await advance(86_400);
    expect((await item()).body.transaction_status).toBe('RETURNED');
    expect(await balance('USD', gina.token)).toBe('10.00');
    expect(await eventTypes(itemId)).toEqual(['PAYMENT.PAYOUTS-ITEM.UNCLAIMED', 'PAYMENT.PAYOUTS-ITEM.RETURNED']);
  });

  it('pays an UNCLAIMED item when its receiver opens an account', async () => {
    await topUp('10.00');
    const id = await createOk([emailItem('Newcomer@Example.com', '3.00')]);
    await settle();
    const itemId = (await getBatch(id)).body.items[0].payout_item_id as string;
    const paidOut = await balance();
    await s.createMerchant('newcomer@example.com');
    const claimed = await s.request('GET', `/v1/payments/payouts-item/${itemId}`);
    expect(claimed.body.transaction_status).toBe('SUCCESS');
    expect(claimed.body.errors).toBeUndefined();
    expect(await balance()).toBe(paidOut);
    expect(await eventTypes(itemId)).toEqual(['PAYMENT.PAYOUTS-ITEM.UNCLAIMED', 'PAYMENT.PAYOUTS-ITEM.SUCCEEDED']);
  });

  it('refuses to pay the sender itself', async () => {
    await topUp('10.00');
    const id = await createOk([emailItem(s.merchant.email, '1.00')]);
    await settle();
    const [item] = (await getBatch(id)).body.items;
    expect(item).toMatchObject({ transaction_status: 'FAILED', errors: { name: 'SELF_PAY_NOT_ALLOWED' }, payout_item_fee: usd('0.00') });
  });
});

describe('tenancy', () => {
  it("shows another merchant's batch and items to nobody else", async () => {
    await topUp('5.00', 'USD', bob.token);
    const mine = await create([emailItem('t@example.com', '1.00')], {}, { token: bob.token });
    const id = mine.body.batch_header.payout_batch_id as string;
    await settle();
    const itemId = (await getBatch(id, '', bob.token)).body.items[0].payout_item_id as string;
    expect((await getBatch(id)).status).toBe(404);
    expect((await s.request('GET', `/v1/payments/payouts-item/${itemId}`)).status).toBe(404);
    const cancel = await s.request('POST', `/v1/payments/payouts-item/${itemId}/cancel`);
    expect(cancel.status).toBe(404);
    expect((await s.request('GET', `/v1/payments/payouts-item/${itemId}`, { token: bob.token })).body.transaction_status).toBe('UNCLAIMED');
    const unauthenticated = await s.request('GET', `/v1/payments/payouts/${id}`, { token: null });
    expect(unauthenticated.status).toBe(401);
  });
});
