// Payout rules as tables: batch and item transitions, the sandbox test values, the fee schedule.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceError } from '../../src/server/http/errors.js';
import { payoutItemFee } from '../../src/server/payouts/fees.js';
import {
  BATCH_STATUSES,
  ITEM_STATUSES,
  assertBatchCanTransition,
  assertItemCanTransition,
  type BatchStatus,
  type ItemStatus,
} from '../../src/server/payouts/states.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** Written out by hand from the spec: the moves this server makes, and nothing else. */
const BATCH_ALLOWED: ReadonlyArray<[BatchStatus, BatchStatus]> = [
  ['PENDING', 'PROCESSING'],
  ['PENDING', 'DENIED'],
  ['PROCESSING', 'SUCCESS'],
];

const ITEM_ALLOWED: ReadonlyArray<[ItemStatus, ItemStatus]> = [
  ['PENDING', 'SUCCESS'],
  ['PENDING', 'FAILED'],
  ['PENDING', 'UNCLAIMED'],
  ['PENDING', 'ONHOLD'],
  ['PENDING', 'BLOCKED'],
  ['UNCLAIMED', 'RETURNED'],
  ['UNCLAIMED', 'SUCCESS'],
];

const pairs = <S extends string>(statuses: readonly S[]) => statuses.flatMap((from) => statuses.map((to) => [from, to] as const));

describe('batch status table', () => {
  it.each(pairs(BATCH_STATUSES))('%s -> %s', (from, to) => {
    const allowed = BATCH_ALLOWED.some(([a, b]) => a === from && b === to);
    const attempt = () => assertBatchCanTransition('move', from, to);
    if (allowed) {
      expect(attempt).not.toThrow();
      return;
    }
    expect(attempt).toThrow(ServiceError);
    try {
      attempt();
    } catch (error) {
      expect((error as ServiceError).errorName).toBe('UNPROCESSABLE_ENTITY');
      expect((error as ServiceError).details[0]).toMatchObject({ issue: 'BATCH_INCORRECT_STATUS', value: from });
    }
  });
});

describe('item status table', () => {
  it.each(pairs(ITEM_STATUSES))('%s -> %s', (from, to) => {
    const allowed = ITEM_ALLOWED.some(([a, b]) => a === from && b === to);
    const attempt = () => assertItemCanTransition('move', from, to);
    if (allowed) {
      expect(attempt).not.toThrow();
      return;
    }
    expect(attempt).toThrow(ServiceError);
    try {
      attempt();
    } catch (error) {
      expect((error as ServiceError).status).toBe(422);
      expect((error as ServiceError).details[0]).toMatchObject({ issue: 'ITEM_INCORRECT_STATUS', value: from });
      expect((error as ServiceError).details[0]?.description).toContain(`Cannot move a payout item in status ${from}`);
    }
  });
});

describe('fee schedule', () => {
  it.each([
    ['USD', 1n, 0n],
    ['USD', 25n, 1n], // 0.25 -> 0.005, half-up
    ['USD', 1000n, 20n],
    ['USD', 100_000n, 2000n], // 1000.00 -> 20.00, the cap
    ['USD', 100_001n, 2000n],
    ['JPY', 500n, 10n],
    ['JPY', 100_000n, 20n], // capped at 20 JPY
    ['BHD', 1000n, 20n],
  ])('%s %s minor units -> fee %s', (currency, amount, fee) => {
    expect(payoutItemFee(amount, currency)).toBe(fee);
  });
});

/**
 * The sandbox test values, written out by hand (not imported from the code's table): the note
 * value, the error name the item carries, and the status it ends in.
 */
const TEST_VALUES: ReadonlyArray<[string, string, ItemStatus]> = [
  ['ERRPYO001', 'SENDER_RESTRICTED', 'FAILED'],
  ['ERRPYO002', 'SENDER_EMAIL_UNCONFIRMED', 'FAILED'],
  ['ERRPYO003', 'AUTHORIZATION_ERROR', 'FAILED'],
  ['ERRPYO005', 'INSUFFICIENT_FUNDS', 'FAILED'],
  ['ERRPYO006', 'INTERNAL_ERROR', 'FAILED'],
  ['ERRPYO010', 'VALIDATION_ERROR', 'FAILED'],
  ['ERRPYO011', 'REQUIRED_SCOPE_MISSING', 'FAILED'],
  ['ERRPYO012', 'SENDER_LOCKED', 'FAILED'],
  ['ERRPYO014', 'USER_BUSINESS_ERROR', 'FAILED'],
  ['ERRPYO015', 'CLOSED_MARKET', 'FAILED'],
  ['ERRPYO016', 'CURRENCY_COMPLIANCE', 'BLOCKED'],
  ['ERRPYO017', 'CURRENCY_NOT_SUPPORTED_FOR_RECEIVER', 'FAILED'],
  ['ERRPYO018', 'DUPLICATE_ITEM', 'FAILED'],
  ['ERRPYO019', 'RECEIVER_ACCOUNT_LOCKED', 'FAILED'],
  ['ERRPYO020', 'RECEIVER_COUNTRY_NOT_ALLOWED', 'FAILED'],
  ['ERRPYO021', 'RECEIVER_UNCONFIRMED', 'UNCLAIMED'],
  ['ERRPYO022', 'RECEIVER_UNREGISTERED', 'UNCLAIMED'],
  ['ERRPYO023', 'RECEIVER_YOUTH_ACCOUNT', 'FAILED'],
  ['ERRPYO024', 'RECEIVING_LIMIT_EXCEEDED', 'ONHOLD'],
  ['ERRPYO025', 'REGULATORY_BLOCKED', 'BLOCKED'],
  ['ERRPYO026', 'REGULATORY_PENDING', 'ONHOLD'],
  ['ERRPYO027', 'RISK_DECLINE', 'FAILED'],
  ['ERRPYO028', 'SELF_PAY_NOT_ALLOWED', 'FAILED'],
  ['ERRPYO029', 'TRANSACTION_LIMIT_EXCEEDED', 'FAILED'],
  ['ERRPYO030', 'UNDEFINED', 'FAILED'],
  ['ERRPYO031', 'ZERO_AMOUNT', 'FAILED'],
  ['ERRPYO032', 'INVALID_RESOURCE_ID', 'FAILED'],
  ['ERRPYO033', 'INTERNAL_ERROR', 'FAILED'],
  ['ERRPYO034', 'INVALID_EMAIL', 'FAILED'],
  ['ERRPYO035', 'RATE_LIMIT_VALIDATION', 'FAILED'],
  ['ERRPYO036', 'REQUEST_TIMEOUT_EXCEEDED', 'FAILED'],
  ['ERRPYO037', 'SYNC_MODE_NOT_APPLICABLE', 'FAILED'],
  ['ERRPYO038', 'NON_HOLDING_CURRENCY', 'FAILED'],
  ['ERRPYO039', 'PREVIOUS_REQUEST_IN_PROGRESS', 'FAILED'],
  ['ERRPYO040', 'CIP_NOT_VERIFIED', 'FAILED'],
  ['ERRPYO041', 'CLOSED_MARKET', 'FAILED'],
  ['ERRPYO042', 'CURRENCY_COMPLIANCE', 'BLOCKED'],
  ['ERRPYO043', 'CURRENCY_NOT_SUPPORTED_FOR_RECEIVER', 'FAILED'],
  ['ERRPYO044', 'RECEIVER_ACCOUNT_LOCKED', 'FAILED'],
  ['ERRPYO045', 'RECEIVER_COUNTRY_NOT_ALLOWED', 'FAILED'],
  ['ERRPYO046', 'RECEIVER_UNCONFIRMED', 'UNCLAIMED'],
  ['ERRPYO047', 'RECEIVER_UNREGISTERED', 'UNCLAIMED'],
  ['ERRPYO048', 'RECEIVER_YOUTH_ACCOUNT', 'FAILED'],
  ['ERRPYO049', 'RECEIVING_LIMIT_EXCEEDED', 'ONHOLD'],
  ['ERRPYO050', 'REGULATORY_BLOCKED', 'BLOCKED'],
  ['ERRPYO051', 'REGULATORY_PENDING', 'ONHOLD'],
  ['ERRPYO052', 'RISK_DECLINE', 'FAILED'],
  ['ERRPYO053', 'SELF_PAY_NOT_ALLOWED', 'FAILED'],
  ['ERRPYO054', 'TRANSACTION_LIMIT_EXCEEDED', 'FAILED'],
  ['ERRPYO055', 'UNDEFINED', 'FAILED'],
  ['ERRPYO056', 'ZERO_AMOUNT', 'FAILED'],
  ['ERRPYO057', 'INVALID_RESOURCE_ID', 'FAILED'],
  ['ERRPYO058', 'INTERNAL_ERROR', 'FAILED'],
  ['ERRPYO059', 'INVALID_EMAIL', 'FAILED'],
  ['ERRPYO060', 'RECEIVER_ACCOUNT_LIMITATION', 'ONHOLD'],
  ['ERRPYO061', 'RECEIVER_ACCOUNT_LIMITATION', 'ONHOLD'],
];

const HELD_EVENT: Partial<Record<ItemStatus, string>> = {
  FAILED: 'PAYMENT.PAYOUTS-ITEM.FAILED',
  BLOCKED: 'PAYMENT.PAYOUTS-ITEM.BLOCKED',
  ONHOLD: 'PAYMENT.PAYOUTS-ITEM.HELD',
  UNCLAIMED: 'PAYMENT.PAYOUTS-ITEM.UNCLAIMED',
};

describe('sandbox test values in item notes', () => {
  let s: TestServer;
  let items: Array<Record<string, any>>;

  beforeAll(async () => {
    s = await startTestServer({ memory: true, config: { jobIntervalMs: 3_600_000 } });
    await s.createMerchant('receiver@example.com');
    await s.request('POST', '/_payctl/balances', { body: { currency: 'USD', value: '1000.00' } });
    const notes = [...TEST_VALUES.map(([code]) => code), 'errpyo002', 'ERRPYO004', 'ERRPYO0021', 'see ERRPYO002'];
    const created = await s.request('POST', '/v1/payments/payouts', {
      body: {
        sender_batch_header: { sender_batch_id: 'test-values', recipient_type: 'EMAIL' },
        // Every receiver has an account: without a test value each item would succeed.
        items: notes.map((note) => ({ receiver: 'receiver@example.com', amount: { currency: 'USD', value: '1.00' }, note })),
      },
    });
    expect(created.status).toBe(201);
    await s.server.deps.scheduler.runAll();
    const batch = await s.request('GET', `/v1/payments/payouts/${created.body.batch_header.payout_batch_id}`);
    expect(batch.body.batch_header.batch_status).toBe('SUCCESS');
    items = batch.body.items;
  });
  afterAll(async () => {
    await s.close();
  });

  it.each(TEST_VALUES.map((row, index) => [...row, index] as const))('%s -> %s (%s)', async (code, name, status, index) => {
    const item = items[index]!;
    expect(item.payout_item.note).toBe(code);
    expect(item.transaction_status).toBe(status);
    expect(item.errors).toMatchObject({ name, details: [] });
    expect(item.errors.message.length).toBeGreaterThan(0);
    // The schema requires a debug_id; the item's failure keeps one id across reads.
    expect(item.errors.debug_id).toMatch(/^[0-9a-f]{14}$/);
    const alone = await s.request('GET', `/v1/payments/payouts-item/${item.payout_item_id}`);
    expect(alone.body.errors.debug_id).toBe(item.errors.debug_id);
    const charged = status === 'ONHOLD' || status === 'UNCLAIMED';
    expect(item.payout_item_fee).toEqual({ currency: 'USD', value: charged ? '0.02' : '0.00' });
    const events = await s.server.db.selectFrom('events').select('event_type').where('resource_id', '=', item.payout_item_id).execute();
    expect(events.map((event) => event.event_type)).toEqual([HELD_EVENT[status]]);
  });

  it('ignores notes that are not exactly a listed test value', () => {
    const rest = items.slice(TEST_VALUES.length);
    expect(rest.map((item) => item.payout_item.note)).toEqual(['errpyo002', 'ERRPYO004', 'ERRPYO0021', 'see ERRPYO002']);
    for (const item of rest) {
      expect(item.transaction_status).toBe('SUCCESS');
      expect(item.errors).toBeUndefined();
    }
  });

  it('charges only the items that were paid out', async () => {
    const chargedCount = TEST_VALUES.filter(([, , status]) => status === 'ONHOLD' || status === 'UNCLAIMED').length + 4;
    const balances = await s.request('GET', '/_payctl/balances');
    const expected = 100_000n - BigInt(chargedCount) * 102n;
    const value = `${expected / 100n}.${(expected % 100n).toString().padStart(2, '0')}`;
    expect(balances.body.balances).toEqual([{ currency: 'USD', value }]);
  });
});
