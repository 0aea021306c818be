// Migration 0013 on a database written before it: each movement gains its gross, fee, related
// transaction, invoice and custom ids and running balance from what the other tables knew; times
// gain milliseconds; the movements per day are counted.

import { describe, expect, it } from 'vitest';
import { migrateBelow, migrationStatements, openMigrationTarget } from '../helpers/migration-target.js';

/** Rows as payctl before 0013 wrote them: a capture, its refund, a lost dispute's reversal and reinstatement, a top-up. */
const OLD_ROWS = [
  `INSERT INTO accounts (id, email, created_at) VALUES ('ACC1', 'a@example.com', '2026-01-01T00:00:00Z')`,
  `INSERT INTO captures (id, account_id, order_id, reference_id, status, currency, amount_minor, fee_minor, net_minor, refunded_minor, refunded_fee_minor, invoice_id, custom_id, details, create_time, update_time)
    VALUES ('CAP1', 'ACC1', 'ORD1', 'default', 'PARTIALLY_REFUNDED', 'USD', 10000, 398, 9602, 1000, 40, 'INV-1', 'cust-1', '{}', '2026-01-01T10:00:00Z', '2026-01-01T10:00:00Z')`,
  `INSERT INTO refunds (id, account_id, capture_id, status, currency, amount_minor, fee_minor, net_minor, invoice_id, custom_id, details, create_time, update_time)
    VALUES ('REF1', 'ACC1', 'CAP1', 'COMPLETED', 'USD', 1000, 40, 960, 'INV-R', NULL, '{}', '2026-01-02T09:00:00Z', '2026-01-02T09:00:00Z')`,
  `INSERT INTO balance_movements (account_id, currency, amount_minor, kind, reference_id, create_time) VALUES
    ('ACC1', 'USD', 9602, 'CAPTURE', 'CAP1', '2026-01-01T10:00:00Z'),
    ('ACC1', 'USD', -960, 'REFUND', 'REF1', '2026-01-02T09:00:00Z'),
    ('ACC1', 'EUR', 750, 'TOP_UP', 'TOPUP0000000001', '2026-01-02T09:30:00.250Z'),
    ('ACC1', 'USD', -8642, 'REVERSAL', 'CAP1', '2026-01-03T08:00:00Z')`,
];

describe('migration 0013 (reporting)', () => {
  it('fills in what it can of the movements written before it', async () => {
    const target = await openMigrationTarget('mig13');
    try {
      await migrateBelow(target, 13);
      for (const statement of OLD_ROWS) await target.exec(statement);
      for (const statement of migrationStatements(13)) await target.exec(statement);
      const rows = (await target.rows(
        `SELECT kind, reference_id, create_time, amount_minor, gross_minor, fee_minor, balance_after, related_id, invoice_id, custom_id FROM balance_movements ORDER BY seq`,
      )).map((row) => ({ ...row, amount_minor: Number(row.amount_minor), gross_minor: Number(row.gross_minor), fee_minor: Number(row.fee_minor), balance_after: Number(row.balance_after) }));
      expect(rows).toEqual([
        { kind: 'CAPTURE', reference_id: 'CAP1', create_time: '2026-01-01T10:00:00.000Z', amount_minor: 9602, gross_minor: 10000, fee_minor: -398, balance_after: 9602, related_id: null, invoice_id: 'INV-1', custom_id: 'cust-1' },
        { kind: 'REFUND', reference_id: 'REF1', create_time: '2026-01-02T09:00:00.000Z', amount_minor: -960, gross_minor: -1000, fee_minor: 40, balance_after: 8642, related_id: 'CAP1', invoice_id: 'INV-R', custom_id: null },
        { kind: 'TOP_UP', reference_id: 'TOPUP0000000001', create_time: '2026-01-02T09:30:00.250Z', amount_minor: 750, gross_minor: 750, fee_minor: 0, balance_after: 750, related_id: null, invoice_id: null, custom_id: null },
        { kind: 'REVERSAL', reference_id: 'CAP1', create_time: '2026-01-03T08:00:00.000Z', amount_minor: -8642, gross_minor: -8642, fee_minor: 0, balance_after: 0, related_id: 'CAP1', invoice_id: null, custom_id: null },
      ]);
      const days = (await target.rows(`SELECT day, movements FROM balance_movement_days WHERE account_id = 'ACC1' ORDER BY day`)).map((row) => [row.day, Number(row.movements)]);
      expect(days).toEqual([
        ['2026-01-01', 1],
        ['2026-01-02', 2],
        ['2026-01-03', 1],
      ]);
    } finally {
      await target.close();
    }
  });
});
