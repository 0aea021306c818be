// Many balance movements at once: the bulk form of the ledger's recordMovement, for payout chunks.
// Same tables and meaning as src/server/ledger/store.ts: one movement row each, and one balance
// update per (account, currency) with the movements' sum, all in the caller's transaction.

import type { Queryable } from '../db/schema.js';
import { addToBalance, movementRow, type Movement } from '../ledger/store.js';

const MOVEMENT_COLUMNS = 7;
const ROWS_PER_INSERT = Math.floor(30_000 / MOVEMENT_COLUMNS);

export async function recordMovements(db: Queryable, movements: readonly Movement[]): Promise<void> {
  if (movements.length === 0) return;
  const rows = movements.map(movementRow);
  for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
    await db.insertInto('balance_movements').values(rows.slice(start, start + ROWS_PER_INSERT)).execute();
  }
  const sums = new Map<string, { accountId: string; currency: string; total: bigint }>();
  for (const movement of movements) {
    const key = `${movement.accountId}\u0000${movement.currency}`;
    const entry = sums.get(key) ?? { accountId: movement.accountId, currency: movement.currency, total: 0n };
    entry.total += movement.amountMinor;
    sums.set(key, entry);
  }
  for (const { accountId, currency, total } of sums.values()) await addToBalance(db, accountId, currency, total);
}
