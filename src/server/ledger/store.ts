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
 * The balance increments of one transaction, applied right before its COMMIT (db/storage.ts
 * `BeforeCommitStep`): a merchant's captures all move its one balance row, which each holds locked
 * from its increment to its COMMIT, so the increment comes last. One upsert per balance row, in
 * (account, currency) order: balance rows are last in the lock order, by currency.
 */
class PendingIncrements implements BeforeCommitStep {
  readonly sums = new Map<string, { accountId: string; currency: string; amount: bigint }>();

  add(accountId: string, currency: string, amount: bigint): void {
    const key = `${accountId}\u0000${currency}`;
    const entry = this.sums.get(key);
    if (entry) entry.amount += amount;
    else this.sums.set(key, { accountId, currency, amount });
  }

  async run(trx: Trx): Promise<void> {
    for (const increment of this.ordered()) await balanceUpsert.execute(trx, increment);
  }

  /** The upserts with their values written in: ids and currency codes are plain words, amounts integers. */
  inlineSql(): string | undefined {
    const increments = this.ordered();
    if (!increments.every((increment) => PLAIN_WORD.test(increment.accountId) && PLAIN_WORD.test(increment.currency))) return undefined;
    return increments
      .map(
        ({ accountId, currency, amount }) =>
          `INSERT INTO balances (account_id, currency, available_minor) VALUES ('${accountId}', '${currency}', ${amount}) ` +
          `ON CONFLICT (account_id, currency) DO UPDATE SET available_minor = balances.available_minor + ${amount}`,
      )
      .join('; ');
  }

  private ordered() {
    return [...this.sums.keys()].sort().map((key) => this.sums.get(key)!);
  }
}

/** What may be written into SQL text as a quoted literal without escaping. */
const PLAIN_WORD = /^[A-Za-z0-9_-]{1,64}$/;

/** The kind of the ledger's before-commit step. */
const INCREMENTS = {};

/**
 * Applies the increments `db`'s transaction deferred so far: every read or write of `balances` other
 * than an increment goes through here first, so it sees its own transaction's movements.
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
  const pending = beforeCommitStep(db, INCREMENTS, () => new PendingIncrements());
  if (pending !== undefined) pending.add(accountId, currency, amount);
  else await balanceUpsert.execute(db, { accountId, currency, amount });
}

/** Records a movement and updates the balance, in the caller's transaction. */
export async function recordMovement(db: Queryable, movement: Movement): Promise<void> {
  await insertRow(db, 'balance_movements', movementRow(movement));
  await addToBalance(db, movement.accountId, movement.currency, movement.amountMinor);
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
