// Identifier shapes, and the clock-ordered prefix that makes new ids sort after every earlier one.

import { afterEach, describe, expect, it, vi } from 'vitest';
import { cryptoIds, orderedId, prefixedId, transactionId, upperId } from '../../src/server/core/ids.js';

const SECOND = 1_000;
const at = (ms: number) => vi.setSystemTime(new Date(ms));

describe('ids', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('keeps the documented shapes: 17 characters for payments, PREFIX- plus the length asked', () => {
    for (let i = 0; i < 200; i += 1) {
      expect(transactionId(cryptoIds)).toMatch(/^[0-9A-Z]{17}$/);
      expect(prefixedId(cryptoIds, 'WH', 20)).toMatch(/^WH-[0-9A-Z]{20}$/);
      expect(upperId(cryptoIds, 13)).toMatch(/^[0-9A-Z]{13}$/);
    }
  });

  it('starts with the clock second: ids of one second share five characters, later seconds sort after', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const start = Date.UTC(2026, 10, 21, 12, 0, 0);
    at(start);
    const first = Array.from({ length: 50 }, () => transactionId(cryptoIds));
    at(start + 999);
    first.push(transactionId(cryptoIds));
    at(start + SECOND);
    const second = Array.from({ length: 50 }, () => transactionId(cryptoIds));
    expect(new Set(first.map((id) => id.slice(0, 5))).size).toBe(1);
    expect(new Set(second.map((id) => id.slice(0, 5))).size).toBe(1);
    const latestOfFirst = [...first].sort().at(-1)!;
    for (const id of second) expect(id > latestOfFirst).toBe(true);
    // The rest stays random: 51 ids in one second, all different after the prefix.
    expect(new Set(first.map((id) => id.slice(5))).size).toBe(first.length);
  });

  it('refuses a length that would leave fewer than 12 random characters', () => {
    expect(() => orderedId(cryptoIds, 16)).toThrow(/too few random/);
    expect(orderedId(cryptoIds, 17)).toHaveLength(17);
  });

  // Why the clock prefix exists (ids.ts): a unique index puts an entry where its key sorts, so ids
  // that sort after every earlier one are appended at the index's end (few pages written per
  // commit), where random ones land all over it. That ordering is asserted here; how many pages
  // SQLite then writes is its business (measured in the commit that made the prefix).
  it('puts a second of new ids after every earlier id, in one run at the end, where random ids scatter', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const start = Date.UTC(2026, 10, 21, 12, 0, 0);
    const newIdsAt = (makeId: () => string): { earliest: number; run: boolean } => {
      const earlier: string[] = [];
      for (let i = 0; i < 20_000; i += 1) {
        at(start + Math.floor(i / 2_000) * SECOND);
        earlier.push(makeId());
      }
      at(start + 11 * SECOND);
      const fresh = new Set(Array.from({ length: 200 }, makeId));
      const positions = [...earlier, ...fresh]
        .sort()
        .flatMap((id, index) => (fresh.has(id) ? [index] : []));
      // One run: the new ids' positions in the sorted whole are consecutive.
      return { earliest: positions[0]!, run: positions.every((position, i) => position === positions[0]! + i) };
    };
    expect(newIdsAt(() => transactionId(cryptoIds))).toEqual({ earliest: 20_000, run: true });
    // The control: the same check on ids without the prefix finds them spread through the index.
    const random = newIdsAt(() => upperId(cryptoIds, 17));
    expect(random.run).toBe(false);
    expect(random.earliest).toBeLessThan(1_000);
  });

  it('keeps later seconds sorting after earlier ones across a carry of the base-36 prefix', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    // Seconds whose prefix ends in Z, ZZ and ZZZ: the next second carries into the digit before.
    const base = Math.floor(Date.UTC(2026, 10, 21) / SECOND);
    for (const [span, nines] of [[36, 'Z'], [36 ** 2, 'ZZ'], [36 ** 3, 'ZZZ']] as const) {
      const last = base - (base % span) + span - 1;
      at(last * SECOND);
      const before = transactionId(cryptoIds);
      at((last + 1) * SECOND);
      const after = transactionId(cryptoIds);
      expect(before.slice(0, 5).endsWith(nines)).toBe(true);
      expect(after > before).toBe(true);
    }
  });
});
