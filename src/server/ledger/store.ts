// The merchant balance: every movement of money in or out of an account, and the running total.
// Captures add their net amount, refunds and payouts take theirs, sandbox top-ups add.

import { sql, type CompiledQuery } from 'kysely';
import { insertRow, prepared } from '../db/prepared.js';
import type { Queryable, Trx, WithSeq } from '../db/schema.js';
import { beforeCommitStep, takeBeforeCommit, type BeforeCommitStep } from '../db/storage.js';

declare module '../db/schema.js' {
  interface Database {
    balance_movements: WithSeq<MovementRow>;
    balances: { account_id: string; currency: string; available_minor: bigint };
    balance_movement_days: { account_id: string; day: string; movements: bigint };
  }
}

/** A balance movement as stored (the database numbers it: `seq`). */
export interface MovementRow {
  account_id: string;
  currency: string;
  /** The net change of the balance: gross_minor + fee_minor. */
  amount_minor: bigint;
  kind: string;
  reference_id: string;
  /** Account clock, `YYYY-MM-DDTHH:MM:SS.mmmZ` (sortable as text). */
  create_time: string;
  gross_minor: bigint;
  /** Signed as its effect on the balance: a fee charged is negative, a fee given back positive. */
  fee_minor: bigint;
  /** The balance of this account and currency right after this movement (in commit order). */
  balance_after: bigint;
  /** The transaction this one follows from (a refund's or a reversal's capture). */
  related_id: string | null;
  invoice_id: string | null;
  custom_id: string | null;
  /** How the payer funded it, when a card: 'CARD'; otherwise null. */
  instrument: string | null;
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
  /** The gross amount, signed as amountMinor (amountMinor when not given: no fee). */
  grossMinor?: bigint;
  /** The fee's effect on the balance (0 when not given); grossMinor + feeMinor = amountMinor. */
  feeMinor?: bigint;
  relatedId?: string | undefined;
  invoiceId?: string | null | undefined;
  customId?: string | null | undefined;
  instrument?: 'CARD' | undefined;
}

/** A stored time with its milliseconds: second-precision times (`...SSZ`) gain `.000`. */
export function movementTime(time: string): string {
  return time.length === 20 ? `${time.slice(0, 19)}.000Z` : time;
}

/** The stored form of a movement, with the balance after it. */
export function movementRow(movement: Movement, balanceAfter: bigint): MovementRow {
  return {
    account_id: movement.accountId,
    currency: movement.currency,
    amount_minor: movement.amountMinor,
    kind: movement.kind,
    reference_id: movement.referenceId,
    create_time: movementTime(movement.createTime),
    gross_minor: movement.grossMinor ?? movement.amountMinor - (movement.feeMinor ?? 0n),
    fee_minor: movement.feeMinor ?? 0n,
    balance_after: balanceAfter,
    related_id: movement.relatedId ?? null,
    invoice_id: movement.invoiceId ?? null,
    custom_id: movement.customId ?? null,
    instrument: movement.instrument ?? null,
  };
}

const MOVEMENT_COLUMNS = [
  'account_id',
  'currency',
  'amount_minor',
  'kind',
  'reference_id',
  'create_time',
  'gross_minor',
  'fee_minor',
  'balance_after',
  'related_id',
  'invoice_id',
  'custom_id',
  'instrument',
] as const satisfies ReadonlyArray<keyof MovementRow>;

/** Rows per multi-row INSERT (PostgreSQL takes at most 65,535 parameters a statement). */
const ROWS_PER_INSERT = Math.floor(30_000 / MOVEMENT_COLUMNS.length);

async function insertMovements(db: Queryable, rows: readonly MovementRow[]): Promise<void> {
  if (rows.length <= 4) {
    for (const row of rows) await insertRow(db, 'balance_movements', row);
    return;
  }
  for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
    await db.insertInto('balance_movements').values(rows.slice(start, start + ROWS_PER_INSERT)).execute();
  }
}

const balanceUpsert = prepared<{ accountId: string; currency: string; amount: bigint }, { available_minor: bigint }>((db, arg) =>
  db
    .insertInto('balances')
    .values({ account_id: arg('accountId'), currency: arg('currency'), available_minor: arg('amount') })
    .onConflict((conflict) =>
      conflict.columns(['account_id', 'currency']).doUpdateSet((eb) => ({
        available_minor: eb('balances.available_minor', '+', arg('amount')),
      })),
    )
    .returning('available_minor'),
);

const dayCountUpsert = prepared<{ accountId: string; day: string; count: bigint }>((db, arg) =>
  db
    .insertInto('balance_movement_days')
    .values({ account_id: arg('accountId'), day: arg('day'), movements: arg('count') })
    .onConflict((conflict) =>
      conflict.columns(['account_id', 'day']).doUpdateSet((eb) => ({
        movements: eb('balance_movement_days.movements', '+', arg('count')),
      })),
    ),
);

/**
 * A movement written after its balance row's upsert in the same transaction: the balance after it
 * is the row's balance less what the movements after it add (`later`), read by the statement itself.
 */
const movementAfterUpsert = prepared<Omit<MovementRow, 'balance_after'> & { later: bigint }>((db, arg) =>
  db.insertInto('balance_movements').values({
    account_id: arg('account_id'),
    currency: arg('currency'),
    amount_minor: arg('amount_minor'),
    kind: arg('kind'),
    reference_id: arg('reference_id'),
    create_time: arg('create_time'),
    gross_minor: arg('gross_minor'),
    fee_minor: arg('fee_minor'),
    balance_after: sql<bigint>`(SELECT available_minor FROM balances WHERE account_id = ${arg('account_id')} AND currency = ${arg('currency')}) - ${arg('later')}`,
    related_id: arg('related_id'),
    invoice_id: arg('invoice_id'),
    custom_id: arg('custom_id'),
    instrument: arg('instrument'),
  }),
);

/** The day (UTC, of the account's clock) a movement counts in: `YYYY-MM-DD`. */
export const movementDay = (createTime: string) => createTime.slice(0, 10);

/** The balance after the upsert (PostgreSQL's driver may give a bigint column as text). */
async function upsertBalance(db: Queryable, accountId: string, currency: string, amount: bigint): Promise<bigint> {
  // `run` answers at once inside a SQLite transaction: no turn of the microtask queue (hot path).
  const ran = balanceUpsert.run(db, { accountId, currency, amount });
  const row = (ran instanceof Promise ? await ran : ran).rows[0];
  return BigInt(row?.available_minor ?? amount);
}

async function countDay(db: Queryable, day: { accountId: string; day: string; count: bigint }): Promise<void> {
  const ran = dayCountUpsert.run(db, day);
  if (ran instanceof Promise) await ran;
}

const keyOf = (accountId: string, currency: string) => `${accountId}\u0000${currency}`;

/**
 * The ledger writes of one transaction, made right before its COMMIT (db/storage.ts
 * `BeforeCommitStep`): a merchant's captures all move its one balance row, which each holds locked
 * from its increment to its COMMIT, so the increment comes last. One upsert per balance row, in
 * (account, currency) order (balance rows are last in the lock order, by currency), then that row's
 * movements, each with the balance right after it: the row is locked from the upsert to the COMMIT,
 * so these running balances follow the commit order. On PostgreSQL every statement is written with
 * the COMMIT (one round trip less).
 */
class PendingLedger implements BeforeCommitStep {
  constructor(private readonly db: Queryable) {}

  /** After the transaction's other before-commit writes (its event, its stored answer). */
  readonly last = true;

  readonly movements: Movement[] = [];
  readonly sums = new Map<string, { accountId: string; currency: string; amount: bigint }>();

  add(accountId: string, currency: string, amount: bigint): void {
    const key = keyOf(accountId, currency);
    const entry = this.sums.get(key);
    if (entry) entry.amount += amount;
    else this.sums.set(key, { accountId, currency, amount });
  }

  async run(trx: Trx): Promise<void> {
    const rows: MovementRow[] = [];
    for (const increment of this.ordered()) {
      const after = await upsertBalance(trx, increment.accountId, increment.currency, increment.amount);
      rows.push(...this.rowsOf(increment, after).map((entry) => entry.row));
    }
    await insertMovements(trx, rows);
    for (const day of this.days()) await countDay(trx, day);
  }

  /**
   * Movements per (account, day), in that order: the report counts a date range by days. Their rows
   * come after the balance rows in the lock order (every transaction locking one holds its balance).
   */
  private days() {
    const counts = new Map<string, { accountId: string; day: string; count: bigint }>();
    for (const movement of this.movements) {
      const day = movementDay(movement.createTime);
      const key = keyOf(movement.accountId, day);
      const entry = counts.get(key);
      if (entry) entry.count += 1n;
      else counts.set(key, { accountId: movement.accountId, day, count: 1n });
    }
    return [...counts.keys()].sort().map((key) => counts.get(key)!);
  }

  /**
   * The same writes as statements that need nothing read back, for the storage to send with the
   * COMMIT: each balance row's upsert, then its movements, each reading the balance the upsert left
   * less what the later movements of that row add.
   */
  commitQueries(): CompiledQuery[] {
    const queries: CompiledQuery[] = [];
    for (const increment of this.ordered()) {
      queries.push(balanceUpsert.bind(this.db, increment));
      for (const { row, later } of this.rowsOf(increment, 0n)) queries.push(movementAfterUpsert.bind(this.db, { ...row, later }));
    }
    for (const day of this.days()) queries.push(dayCountUpsert.bind(this.db, day));
    return queries;
  }

  /** The movements of one balance row, with the balance after each given the balance after them all. */
  private rowsOf(increment: { accountId: string; currency: string }, finalBalance: bigint) {
    const own = this.movements.filter((movement) => movement.accountId === increment.accountId && movement.currency === increment.currency);
    let later = 0n;
    const rows: Array<{ row: MovementRow; later: bigint }> = [];
    for (let index = own.length - 1; index >= 0; index--) {
      const movement = own[index]!;
      rows.unshift({ row: movementRow(movement, finalBalance - later), later });
      later += movement.amountMinor;
    }
    return rows;
  }

  private ordered() {
    return [...this.sums.keys()].sort().map((key) => this.sums.get(key)!);
  }
}

/** The kind of the ledger's before-commit step. */
const INCREMENTS = {};

const pendingOf = (db: Queryable) => beforeCommitStep(db, INCREMENTS, () => new PendingLedger(db));

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
 * module see it either way. The movements of the same transaction count it before them.
 */
export async function addToBalance(db: Queryable, accountId: string, currency: string, amount: bigint): Promise<void> {
  const pending = pendingOf(db);
  if (pending !== undefined) pending.add(accountId, currency, amount);
  else await upsertBalance(db, accountId, currency, amount);
}

/**
 * Records a movement and updates the balance, in the caller's transaction (both at its end, as
 * `addToBalance`).
 */
export async function recordMovement(db: Queryable, movement: Movement): Promise<void> {
  const pending = pendingOf(db);
  if (pending === undefined) {
    const after = await upsertBalance(db, movement.accountId, movement.currency, movement.amountMinor);
    await insertRow(db, 'balance_movements', movementRow(movement, after));
    await countDay(db, { accountId: movement.accountId, day: movementDay(movement.createTime), count: 1n });
    return;
  }
  pending.movements.push(movement);
  pending.add(movement.accountId, movement.currency, movement.amountMinor);
}

/** Many movements at once (a payout chunk): as many `recordMovement`s, their rows inserted several a statement. */
export async function recordMovements(db: Queryable, movements: readonly Movement[]): Promise<void> {
  const pending = pendingOf(db);
  if (pending === undefined) {
    for (const movement of movements) await recordMovement(db, movement);
    return;
  }
  for (const movement of movements) {
    pending.movements.push(movement);
    pending.add(movement.accountId, movement.currency, movement.amountMinor);
  }
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
  await db.deleteFrom('balance_movement_days').where('account_id', '=', accountId).execute();
  await db.deleteFrom('balances').where('account_id', '=', accountId).execute();
}
