// The failed-credential limiter on a made-up clock: parallel attempts get the slots serial ones
// would have waited for, a full queue is refused with the time to come back, the owner gets through.

import { describe, expect, it } from 'vitest';
import { CLIENT_ID_RULE, CredentialThrottle, FailureLimiter, sourceKey, type Admission } from '../../src/server/oauth/throttle.js';

const admitted = (admission: Admission) => {
  if (!admission.admitted) throw new Error(`refused, retry after ${admission.retryAfterMs} ms`);
  return admission;
};

describe('FailureLimiter spacing', () => {
  it('is 0 for the first 5 failures, then 100 ms doubling up to 2 s', () => {
    const limiter = new FailureLimiter(CLIENT_ID_RULE);
    expect([0, 4, 5, 6, 7, 8, 9, 10, 11, 500].map((failures) => limiter.spacingAfter(failures))).toEqual([0, 0, 100, 200, 400, 800, 1600, 2000, 2000, 2000]);
  });
});

describe('CredentialThrottle', () => {
  /** `count` serial wrong attempts, each judged at its slot; returns the time after the last. */
  function serialFailures(throttle: CredentialThrottle, count: number, start: number, clientId = 'client', address = '10.0.0.1'): { now: number; waits: number[] } {
    let now = start;
    const waits: number[] = [];
    for (let attempt = 0; attempt < count; attempt += 1) {
      const admission = admitted(throttle.admit(clientId, address, now));
      waits.push(admission.waitMs);
      now += admission.waitMs + 50;
      admission.release('failure', now);
    }
    return { now, waits };
  }

  it('serial: the waits a serial guesser sees are the spacing curve', () => {
    const { waits } = serialFailures(new CredentialThrottle(), 12, 1_000_000);
    expect(waits).toEqual([0, 0, 0, 0, 0, 100, 200, 400, 800, 1600, 2000, 2000]);
  });

  it('parallel: a burst of 60 gets the free five at once, then slots spaced as serially, and the rest are refused unchecked', () => {
    const throttle = new CredentialThrottle();
    const now = 5_000_000;
    const burst = Array.from({ length: 60 }, () => throttle.admit('client', '10.0.0.1', now));
    const waits = burst.filter((a) => a.admitted).map((a) => (a.admitted ? a.waitMs : -1));
    // Serial waits accumulate: 0 x5, then 100, 300, 700, 1500, 3100 (each slot after the previous one).
    expect(waits).toEqual([0, 0, 0, 0, 0, 100, 300, 700, 1500, 3100]);
    const refused = burst.filter((a) => !a.admitted);
    expect(refused).toHaveLength(50);
    for (const refusal of refused) expect(refusal.admitted ? 0 : refusal.retryAfterMs).toBeGreaterThan(0);
  });

  it('armed: a parallel burst is checked at one attempt per 2 s, no faster than serial', () => {
    const throttle = new CredentialThrottle();
    const { now } = serialFailures(throttle, 10, 9_000_000);
    const burst = Array.from({ length: 60 }, () => throttle.admit('client', '10.0.0.1', now));
    const waits = burst.filter((a) => a.admitted).map((a) => (a.admitted ? a.waitMs : -1));
    expect(waits).toEqual([2000, 4000]);
    const refusal = burst.find((a) => !a.admitted);
    expect(refusal && !refusal.admitted ? refusal.retryAfterMs : 0).toBe(2000);
  });

  it('the owner who honours Retry-After gets a slot within the bounded wait, and a success clears the count', () => {
    const throttle = new CredentialThrottle();
    let { now } = serialFailures(throttle, 10, 20_000_000);
    for (let i = 0; i < 60; i += 1) throttle.admit('client', '10.0.0.1', now);
    // The owner, from another address, is refused while the queue is full...
    const first = throttle.admit('client', '10.0.0.2', now);
    expect(first.admitted).toBe(false);
    now += first.admitted ? 0 : first.retryAfterMs;
    // ...and admitted when told to come back, with a bounded wait.
    const owner = admitted(throttle.admit('client', '10.0.0.2', now));
    expect(owner.waitMs).toBeLessThanOrEqual(CLIENT_ID_RULE.maxWaitMs);
    now += owner.waitMs;
    owner.release('success', now);
    // The attacker's queued attempts keep their slots (two, at most 4 s ahead); after them the count starts again.
    const next = admitted(throttle.admit('client', '10.0.0.2', now + CLIENT_ID_RULE.maxWaitMs));
    expect(next.waitMs).toBe(0);
  });

  it('per source address: 50 free failures across client ids, then spaced', () => {
    const throttle = new CredentialThrottle();
    let now = 30_000_000;
    const waits: number[] = [];
    for (let attempt = 0; attempt < 53; attempt += 1) {
      const admission = admitted(throttle.admit(`client-${attempt}`, '10.0.0.9', now));
      waits.push(admission.waitMs);
      now += admission.waitMs + 10;
      admission.release('failure', now);
    }
    expect(waits.slice(0, 50).every((wait) => wait === 0)).toBe(true);
    expect(waits.slice(50)).toEqual([100, 200, 400]);
    // Another address is not held up.
    expect(admitted(throttle.admit('client-x', '10.0.0.10', now)).waitMs).toBe(0);
  });

  it('failures are forgotten after 15 quiet minutes', () => {
    const throttle = new CredentialThrottle();
    const { now } = serialFailures(throttle, 10, 40_000_000);
    const armed = admitted(throttle.admit('client', '10.0.0.1', now));
    expect(armed.waitMs).toBe(2000);
    armed.release('failure', now + 2_050);
    const later = now + 2_050 + 15 * 60_000 + 1;
    expect(admitted(throttle.admit('client', '10.0.0.1', later)).waitMs).toBe(0);
  });
});

describe('sourceKey', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['::ffff:127.0.0.1', '127.0.0.1'],
    ['::FFFF:7f00:1', '127.0.0.1'],
    ['0:0:0:0:0:ffff:10.1.2.3', '10.1.2.3'],
    ['::1', '0:0:0:0::/64'],
    ['2001:db8:1:2:aaaa::1', '2001:db8:1:2::/64'],
    ['2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002::', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['fe80::1', 'fe80:0:0:0::/64'],
  ])('%s counts as %s', (address, key) => {
    expect(sourceKey(address)).toBe(key);
  });

  it('addresses of one /64 share one count', () => {
    const throttle = new CredentialThrottle();
    let now = 50_000_000;
    for (let attempt = 0; attempt < 50; attempt += 1) {
      const admission = admitted(throttle.admit(`client-${attempt}`, `2001:db8:1:2::${attempt.toString(16)}`, now));
      now += admission.waitMs + 10;
      admission.release('failure', now);
    }
    expect(admitted(throttle.admit('client-next', '2001:db8:1:2:ffff::9', now)).waitMs).toBe(100);
    expect(admitted(throttle.admit('client-other', '2001:db8:1:3::1', now)).waitMs).toBe(0);
  });
});
