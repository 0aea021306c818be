// The merchant balance: every movement of money in or out of an account, and the running total.
// Captures add their net amount, refunds and payouts take theirs, sandbox top-ups add.

import { insertRow, prepared } from '../db/prepared.js';
import type { Queryable, Trx, WithSeq } from '../db/schema.js';
import { beforeCommitStep, takeBeforeCommit, type BeforeCommitStep } from '../db/storage.js';

declare module '../db/schema.js' {
  interface Database {
    balance_movements: WithSeq<MovementRow>;
    balances: { account_id: string; currency: string; available_minor: bigint };
  }
}

/** A balance movement as stored (the database numbers it: `seq`). */
export interface MovementRow {
  account_id: string;
  currency: string;
  amount_minor: bigint;
  kind: string;
  reference_id: string;
  create_time: string;
}

export type MovementKind =
  | 'CAPTURE'
  | 'REFUND'
  | 'REVERSAL'
  | 'PAYOUT'
  | 'PAYOUT_FEE'
  | 'PAYOUT_RETURN'
  | 'TOP_UP';

export interface Movement {
  accountId: string;
  currency: string;
  /** Signed minor units: positive adds to the balance. */
  amountMinor: bigint;
  kind: MovementKind;
  referenceId: string;
  createTime: string;
}

/** The stored form of a movement. */
export function movementRow(movement: Movement): MovementRow {
  return {
    account_id: movement.accountId,
    currency: movement.currency,
    amount_minor: movement.amountMinor,
    kind: movement.kind,
    reference_id: movement.referenceId,
    create_time: movement.createTime,
  };
}

const balanceUpsert = prepared<{ accountId: string; currency: string; amount: bigint }>((db, arg) =>
  db
    .insertInto('balances')
    .values({ account_id: arg('accountId'), currency: arg('currency'), available_minor: arg('amount') })
    .onConflict((conflict) =>
      conflict.columns(['account_id', 'currency']).doUpdateSet((eb) => ({
        available_minor: eb('balances.available_minor', '+', arg('amount')),
      })),
    ),
);

/**
 * The ledger writes of one transaction, made right before its COMMIT (db/storage.ts
 * `BeforeCommitStep`): a merchant's captures all move its one balance row, which each holds locked
 * from its increment to its COMMIT, so the increment comes last. The movements are inserted in the
 * same step (on PostgreSQL in the same message as the increments and the COMMIT: one round trip
 * less). One upsert per balance row, in (account, currency) order: balance rows are last in the lock
 * order, by currency.
 */
class PendingLedger implements BeforeCommitStep {
  readonly movements: MovementRow[] = [];
  readonly sums = new Map<string, { accountId: string; currency: string; amount: bigint }>();

  add(accountId: string, currency: string, amount: bigint): void {
    const key = `${accountId}\u0000${currency}`;
    const entry = this.sums.get(key);
    if (entry) entry.amount += amount;
    else this.sums.set(key, { accountId, currency, amount });
  }

  async run(trx: Trx): Promise<void> {
    for (const row of this.movements) await insertRow(trx, 'balance_movements', row);
    for (const increment of this.ordered()) await balanceUpsert.execute(trx, increment);
  }

  /**
   * The same writes with their values written in, or undefined unless every text value is made of
   * characters that need no escaping in a quoted literal (ids, codes, timestamps); amounts are integers.
   */
  inlineSql(): string | undefined {
    const increments = this.ordered();
    const texts = [
      ...this.movements.flatMap((row) => [row.account_id, row.currency, row.kind, row.reference_id, row.create_time]),
      ...increments.flatMap((increment) => [increment.accountId, increment.currency]),
    ];
    if (!texts.every((text) => LITERAL_SAFE.test(text))) return undefined;
    const statements: string[] = [];
    if (this.movements.length > 0) {
      const values = this.movements.map(
        (row) => `('${row.account_id}', '${row.currency}', ${row.amount_minor}, '${row.kind}', '${row.reference_id}', '${row.create_time}')`,
      );
      statements.push(`INSERT INTO balance_movements (account_id, currency, amount_minor, kind, reference_id, create_time) VALUES ${values.join(', ')}`);
    }
    for (const { accountId, currency, amount } of increments) {
      statements.push(
        `INSERT INTO balances (account_id, currency, available_minor) VALUES ('${accountId}', '${currency}', ${amount}) ` +
          `ON CONFLICT (account_id, currency) DO UPDATE SET available_minor = balances.available_minor + ${amount}`,
      );
    }
    return statements.join('; ');
  }

  private ordered() {
    return [...this.sums.keys()].sort().map((key) => this.sums.get(key)!);
  }
}

/** Text that may be written into SQL as a quoted literal as it is: no quote, no backslash, nothing else. */
const LITERAL_SAFE = /^[A-Za-z0-9_.:+-]{1,64}$/;

/** The kind of the ledger's before-commit step. */
const INCREMENTS = {};

const pendingOf = (db: Queryable) => beforeCommitStep(db, INCREMENTS, () => new PendingLedger());

/**
 * Writes what `db`'s transaction deferred so far: every other read or write of `balances` and
 * `balance_movements` here goes through this first, so it sees its own transaction's movements.
 */
async function applyPending(db: Queryable): Promise<void> {
  const step = takeBeforeCommit(db, INCREMENTS);
  if (step !== undefined) await step.run(db as Trx);
}

/**
 * Adds `amount` (signed minor units) to the balance, creating it at that amount: at the end of the
 * caller's transaction when it is one of `Storage.transaction`, at once otherwise. Reads through this
 * module see it either way.
 */
export async function addToBalance(db: Queryable, accountId: string, currency: string, amount: bigint): Promise<void> {
  const pending = pendingOf(db);
  if (pending !== undefined) pending.add(accountId, currency, amount);
  else await balanceUpsert.execute(db, { accountId, currency, amount });
}

/**
 * Records a movement and updates the balance, in the caller's transaction (both at its end, as
 * `addToBalance`).
 */
export async function recordMovement(db: Queryable, movement: Movement): Promise<void> {
  const pending = pendingOf(db);
  if (pending === undefined) {
    await insertRow(db, 'balance_movements', movementRow(movement));
    await balanceUpsert.execute(db, { accountId: movement.accountId, currency: movement.currency, amount: movement.amountMinor });
    return;
  }
  pending.movements.push(movementRow(movement));
  pending.add(movement.accountId, movement.currency, movement.amountMinor);
}

export async function balanceOf(db: Queryable, accountId: string, currency: string): Promise<bigint> {
  await applyPending(db);
  const row = await db
    .selectFrom('balances')
    .select('available_minor')
    .where('account_id', '=', accountId)
    .where('currency', '=', currency)
    .executeTakeFirst();
  return row?.available_minor ?? 0n;
}

const balanceForUpdate = prepared<{ accountId: string; currency: string }, { available_minor: bigint }>((db, arg) =>
  db
    .selectFrom('balances')
    .select('available_minor')
    .where('account_id', '=', arg('accountId'))
    .where('currency', '=', arg('currency'))
    .forUpdate(),
);

/**
 * The balance, its row locked until the transaction ends (last in the lock order, db/storage.ts):
 * for a check of the balance before a movement that takes from it.
 */
export async function balanceOfForUpdate(db: Queryable, accountId: string, currency: string): Promise<bigint> {
  await applyPending(db);
  const row = await balanceForUpdate.first(db, { accountId, currency });
  return row?.available_minor ?? 0n;
}

export async function balancesOf(db: Queryable, accountId: string) {
  await applyPending(db);
  return db.selectFrom('balances').select(['currency', 'available_minor']).where('account_id', '=', accountId).orderBy('currency').execute();
}

export async function deleteLedger(db: Queryable, accountId: string): Promise<void> {
  await applyPending(db);
  await db.deleteFrom('balance_movements').where('account_id', '=', accountId).execute();
  await db.deleteFrom('balances').where('account_id', '=', accountId).execute();
}
