// The refund status table, pair by pair, and the one move this server makes: a refund is created COMPLETED.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceError } from '../../src/server/http/errors.js';
import { REFUND_TRANSITIONS, assertRefundCanTransition, refundStatusOf, type RefundStatus } from '../../src/server/payments/states.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { capturedPayment, refund, usd } from './payments-helpers.js';

/** Written out by hand from the API's lifecycle: a PENDING refund completes, fails or is cancelled; the rest are final. */
const ALLOWED: ReadonlyArray<[RefundStatus, RefundStatus]> = [
  ['PENDING', 'COMPLETED'],
  ['PENDING', 'FAILED'],
  ['PENDING', 'CANCELLED'],
];
const STATUSES = Object.keys(REFUND_TRANSITIONS) as RefundStatus[];
const pairs = STATUSES.flatMap((from) => STATUSES.map((to) => [from, to] as const));

describe('refund status table', () => {
  it('holds the four statuses of the API', () => {
    expect(STATUSES.sort()).toEqual(['CANCELLED', 'COMPLETED', 'FAILED', 'PENDING']);
  });

  it.each(pairs)('%s -> %s', (from, to) => {
    const allowed = ALLOWED.some(([a, b]) => a === from && b === to);
    const attempt = () => assertRefundCanTransition('complete', from, to);
    if (allowed) {
      expect(attempt).not.toThrow();
      return;
    }
    expect(attempt).toThrow(ServiceError);
    try {
      attempt();
    } catch (error) {
      expect((error as ServiceError).status).toBe(422);
      expect((error as ServiceError).details[0]).toMatchObject({ issue: 'REFUND_NOT_ALLOWED' });
    }
  });

  it('a stored status outside the table is refused', () => {
    expect(refundStatusOf('COMPLETED')).toBe('COMPLETED');
    expect(() => refundStatusOf('REVERSED')).toThrow('unknown refund status in storage: REVERSED');
  });
});

describe('refunds over HTTP', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ memory: true });
  });
  afterAll(async () => {
    await t.close();
  });

  it('a refund is created COMPLETED, a status the table holds as final', async () => {
    const { captureId } = await capturedPayment(t, '20.00');
    const made = await refund(t, captureId, usd('5.00'));
    expect(made.status).toBe(200);
    expect(refundStatusOf(made.body.status)).toBe('COMPLETED');
    const read = await t.request('GET', `/v2/payments/refunds/${made.body.id}`);
    expect(read.body.status).toBe('COMPLETED');
    expect(REFUND_TRANSITIONS.COMPLETED).toEqual([]);
  });
});
