// The merchant balance: every movement of money in or out of an account, and the running total.
// Captures add their net amount, refunds and payouts take theirs, sandbox top-ups add.

import { insertRow, prepared } from '../db/prepared.js';
import type { Queryable, WithSeq } from '../db/schema.js';

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

/** Adds `amount` (signed minor units) to the balance, creating it at that amount. */
export async function addToBalance(db: Queryable, accountId: string, currency: string, amount: bigint): Promise<void> {
  await balanceUpsert.execute(db, { accountId, currency, amount });
}

/** Records a movement and updates the balance, in the caller's transaction. */
export async function recordMovement(db: Queryable, movement: Movement): Promise<void> {
  await insertRow(db, 'balance_movements', movementRow(movement));
  await addToBalance(db, movement.accountId, movement.currency, movement.amountMinor);
}

export async function balanceOf(db: Queryable, accountId: string, currency: string): Promise<bigint> {
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
  const row = await balanceForUpdate.first(db, { accountId, currency });
  return row?.available_minor ?? 0n;
}

export function balancesOf(db: Queryable, accountId: string) {
  return db.selectFrom('balances').select(['currency', 'available_minor']).where('account_id', '=', accountId).orderBy('currency').execute();
}

export async function deleteLedger(db: Queryable, accountId: string): Promise<void> {
  await db.deleteFrom('balance_movements').where('account_id', '=', accountId).execute();
  await db.deleteFrom('balances').where('account_id', '=', accountId).execute();
}
