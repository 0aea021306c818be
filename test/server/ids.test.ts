// Identifier shapes, and the clock-ordered prefix that keeps unique-index inserts on few pages.

import BetterSqlite3 from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

  it('puts a second of new rows on a few pages of a unique index, where random ids touched one page each', () => {
    const dir = mkdtempSync(join(tmpdir(), 'payctl-ids-'));
    try {
      const framesForNewRows = (name: string, makeId: () => string): number => {
        const db = new BetterSqlite3(join(dir, `${name}.db`));
        db.pragma('journal_mode = WAL');
        db.exec('CREATE TABLE t (seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE)');
        const insert = db.prepare('INSERT INTO t (id) VALUES (?)');
        // An index that has grown over earlier seconds, then 200 rows of the next second in one commit.
        vi.useFakeTimers({ toFake: ['Date'] });
        const start = Date.UTC(2026, 10, 21, 12, 0, 0);
        db.transaction(() => {
          for (let i = 0; i < 20_000; i += 1) {
            at(start + Math.floor(i / 2_000) * SECOND);
            insert.run(makeId());
          }
        })();
        db.pragma('wal_checkpoint(TRUNCATE)');
        at(start + 11 * SECOND);
        db.transaction(() => {
          for (let i = 0; i < 200; i += 1) insert.run(makeId());
        })();
        vi.useRealTimers();
        const frames = (db.pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number }>)[0]?.log;
        db.close();
        if (frames === undefined) throw new Error('wal_checkpoint returned no row');
        return frames;
      };
      const ordered = framesForNewRows('ordered', () => transactionId(cryptoIds));
      const random = framesForNewRows('random', () => upperId(cryptoIds, 17));
      // Measured: 9 pages with clock-ordered ids; 112 and 124 with random ones (a leaf per row, nearly).
      expect(random).toBeGreaterThan(80);
      expect(ordered).toBeLessThan(30);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
