// The clock: timestamp text, one offset per account moving forward only, and reset.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isoMillis, isoSeconds } from '../../src/server/core/clock.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('timestamp text', () => {
  it('is toISOString to the second (isoSeconds) and to the millisecond (isoMillis), whatever order times come in', () => {
    // The formatted second is remembered between calls: alternate seconds, go back, cross zero and year 10000.
    const edges = [0, 1, 999, 1000, 1001, -1, -999, -1000, -1001, 1_763_780_000_010, 1_763_780_000_999, 1_763_780_001_000, 1_763_780_000_100, 253_402_300_799_999, 253_402_300_800_000, -62_198_755_200_000, 8.64e15, -8.64e15];
    let seed = 42;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31);
    const spread = Array.from({ length: 2_000 }, () => (next() - 2 ** 30) * 2_000 + (next() % 1_000));
    for (const ms of [...edges, ...edges.reverse(), ...spread, ...spread.map((value) => value + 1)]) {
      const date = new Date(ms);
      expect(isoMillis(date)).toBe(date.toISOString());
      expect(isoSeconds(date)).toBe(date.toISOString().replace(/\.\d{3}Z$/, 'Z'));
      expect(isoMillis(date)).toBe(date.toISOString());
    }
    expect(() => isoSeconds(new Date(Number.NaN))).toThrow(RangeError);
    expect(() => isoMillis(new Date(Number.NaN))).toThrow(RangeError);
  });
});

describe('clock and reset', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ memory: true });
  });
  afterAll(() => t.close());

  it('keeps one clock per account, forward only', async () => {
    const other = await t.createMerchant();
    await t.advanceClock(3600);
    const mine = await t.request('GET', '/_payctl/clock');
    const theirs = await t.request('GET', '/_payctl/clock', { token: other.token });
    expect(mine.body.offset_seconds).toBe(3600);
    expect(theirs.body.offset_seconds).toBe(0);
    expect(Date.parse(mine.body.now) - Date.parse(theirs.body.now)).toBeGreaterThanOrEqual(3_599_000);
  });

  it('resets the caller account (clock back to now), or all with the admin key', async () => {
    const reset = await t.request('POST', '/_payctl/reset');
    expect(reset.body).toEqual({ reset: 'account' });
    expect((await t.request('GET', '/_payctl/clock')).body.offset_seconds).toBe(0);
    const all = await t.request('POST', '/_payctl/reset', { token: t.adminKey });
    expect(all.body).toEqual({ reset: 'all' });
  });
});
