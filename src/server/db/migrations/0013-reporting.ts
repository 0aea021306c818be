// What the transaction report needs of each balance movement, recorded with it by the ledger's
// before-commit step (so in the same transaction as the money change): the gross and the fee of the
// movement, the transaction it relates to, the merchant's invoice and custom ids, the card funding
// it, and the balance right after it. Times become one sortable form (milliseconds, `Z`) and are
// indexed per account and time for the date-range search and the balance at a time (one index: each
// costs every capture an insert); a count
// of movements per account and day lets a search count a month without reading every movement.

import type { Migration } from './types.js';

/** Movements of a capture: its gross and fee (the movement is the net), its invoice and custom ids. */
const CAPTURE_BACKFILL = `UPDATE balance_movements SET
    gross_minor = (SELECT c.amount_minor FROM captures c WHERE c.id = balance_movements.reference_id),
    fee_minor = -(SELECT c.fee_minor FROM captures c WHERE c.id = balance_movements.reference_id),
    invoice_id = (SELECT c.invoice_id FROM captures c WHERE c.id = balance_movements.reference_id),
    custom_id = (SELECT c.custom_id FROM captures c WHERE c.id = balance_movements.reference_id)
  WHERE kind = 'CAPTURE' AND EXISTS (SELECT 1 FROM captures c WHERE c.id = balance_movements.reference_id)`;

/** A refund gives back its gross and takes back its share of the fee; it relates to its capture. */
const REFUND_BACKFILL = `UPDATE balance_movements SET
    gross_minor = -(SELECT r.amount_minor FROM refunds r WHERE r.id = balance_movements.reference_id),
    fee_minor = (SELECT r.fee_minor FROM refunds r WHERE r.id = balance_movements.reference_id),
    related_id = (SELECT r.capture_id FROM refunds r WHERE r.id = balance_movements.reference_id),
    invoice_id = (SELECT r.invoice_id FROM refunds r WHERE r.id = balance_movements.reference_id),
    custom_id = (SELECT r.custom_id FROM refunds r WHERE r.id = balance_movements.reference_id)
  WHERE kind = 'REFUND' AND EXISTS (SELECT 1 FROM refunds r WHERE r.id = balance_movements.reference_id)`;

/** A capture's reversal (its reference is the capture); a reinstatement's reference is the dispute. */
const REVERSAL_BACKFILL = [
  `UPDATE balance_movements SET related_id = reference_id WHERE kind = 'REVERSAL' AND amount_minor < 0`,
  `UPDATE balance_movements SET related_id = (SELECT d.capture_id FROM disputes d WHERE d.id = balance_movements.reference_id)
    WHERE kind = 'REVERSAL' AND amount_minor > 0`,
  `UPDATE balance_movements SET related_id = reference_id WHERE kind = 'PAYOUT_RETURN'`,
];

/**
 * The running balance in the order the movements were recorded, in one pass (a window over each
 * merchant's currency), so a large ledger migrates in linear time on both engines.
 */
const BALANCE_BACKFILL = `UPDATE balance_movements SET balance_after = running.total
  FROM (SELECT seq, SUM(amount_minor) OVER (PARTITION BY account_id, currency ORDER BY seq) AS total FROM balance_movements) AS running
  WHERE running.seq = balance_movements.seq`;

export const reportingMigration: Migration = {
  id: 13,
  name: 'reporting',
  statements: [
    `ALTER TABLE balance_movements ADD COLUMN gross_minor INTEGER NOT NULL DEFAULT 0`,
    `ALTER TABLE balance_movements ADD COLUMN fee_minor INTEGER NOT NULL DEFAULT 0`,
    `ALTER TABLE balance_movements ADD COLUMN balance_after INTEGER NOT NULL DEFAULT 0`,
    `ALTER TABLE balance_movements ADD COLUMN related_id TEXT`,
    `ALTER TABLE balance_movements ADD COLUMN invoice_id TEXT`,
    `ALTER TABLE balance_movements ADD COLUMN custom_id TEXT`,
    `ALTER TABLE balance_movements ADD COLUMN instrument TEXT`,
    `UPDATE balance_movements SET gross_minor = amount_minor`,
    CAPTURE_BACKFILL,
    REFUND_BACKFILL,
    ...REVERSAL_BACKFILL,
    BALANCE_BACKFILL,
    // Second-precision times gain their milliseconds, so that text order is time order.
    `UPDATE balance_movements SET create_time = substr(create_time, 1, 19) || '.000Z' WHERE length(create_time) = 20`,
    `DROP INDEX balance_movements_account`,
    `CREATE INDEX balance_movements_time ON balance_movements(account_id, create_time, seq)`,
    // Refunds and reversals of a capture (only movements that relate to another have an entry).
    `CREATE INDEX balance_movements_related ON balance_movements(account_id, related_id) WHERE related_id IS NOT NULL`,
    // Movements per account and day (of the stored time): a 31-day count reads ~31 rows, not every movement.
    `CREATE TABLE balance_movement_days (
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      day TEXT NOT NULL,
      movements INTEGER NOT NULL,
      PRIMARY KEY (account_id, day)
    )`,
    `INSERT INTO balance_movement_days (account_id, day, movements)
      SELECT account_id, substr(create_time, 1, 10), COUNT(*) FROM balance_movements GROUP BY account_id, substr(create_time, 1, 10)`,
  ],
};
