// The merchant balance as the control plane shows it, and sandbox top-ups (kind TOP_UP).

import { isoMillis } from '../core/clock.js';
import type { ServiceContext } from '../core/deps.js';
import { prefixedId } from '../core/ids.js';
import { lockAccount } from '../db/account-lock.js';
import { serviceError } from '../http/errors.js';
import type { StoredResponse } from '../http/idempotency.js';
import { balanceOfForUpdate, balancesOf, recordMovement } from '../ledger/store.js';
import { MAX_INTEGER_DIGITS, currencyExponent, toMinorUnits } from '../../lib/money.js';
import { payoutMoney, type PayoutMoney } from './resources.js';

export interface BalancesView {
  payer_id: string;
  balances: PayoutMoney[];
}

export async function balancesView(ctx: ServiceContext): Promise<BalancesView> {
  const rows = await balancesOf(ctx.db, ctx.accountId);
  return { payer_id: ctx.accountId, balances: rows.map((row) => payoutMoney(row.available_minor, row.currency)) };
}

/** Adds money to the balance for tests; the result must stay within 15 integer digits. */
export async function topUpBalance(ctx: ServiceContext, amount: PayoutMoney): Promise<StoredResponse<BalancesView>> {
  const minor = toMinorUnits(amount.value, amount.currency);
  const ceiling = 10n ** BigInt(MAX_INTEGER_DIGITS + currencyExponent(amount.currency)) - 1n;
  // The ceiling is checked, then the balance moved: under the account's lock (a first top-up has no
  // balance row to lock yet), then the balance row's.
  await lockAccount(ctx.db, ctx.accountId);
  if ((await balanceOfForUpdate(ctx.db, ctx.accountId, amount.currency)) + minor > ceiling) {
    throw serviceError('UNPROCESSABLE_ENTITY', 'MAX_VALUE_EXCEEDED', `The balance may hold at most ${MAX_INTEGER_DIGITS} integer digits.`, {
      field: '/value',
      value: amount.value,
    });
  }
  await recordMovement(ctx.db, {
    accountId: ctx.accountId,
    currency: amount.currency,
    amountMinor: minor,
    kind: 'TOP_UP',
    referenceId: prefixedId(ctx.deps.ids, 'TOPUP', 17),
    createTime: isoMillis(ctx.now),
  });
  return { status: 200, body: await balancesView(ctx) };
}
