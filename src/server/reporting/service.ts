// The reports: a merchant's transactions in a date range (page by page) and its balances at a time.
// Both read the ledger's own tables (balance_movements, balances), written in the same transaction as
// every money change, so a result is immediate: the public service may take up to three hours.

import { isoSeconds } from '../core/clock.js';
import type { ServiceContext } from '../core/deps.js';
import { serviceError } from '../http/errors.js';
import { link } from '../http/links.js';
import { money } from '../../lib/money.js';
import { orderPartsOf } from './order-info.js';
import { reportTime, transactionInfo } from './present.js';
import { storedTime, type BalancesQuery, type SearchQuery } from './schema.js';
import * as store from './store.js';
import type { BalanceDetail, BalancesResponse, TransactionSearch } from './types.js';

const SEARCH_PATH = '/v1/reporting/transactions';

function pageLink(ctx: ServiceContext, query: SearchQuery, page: number, rel: string) {
  const params = new URLSearchParams({ ...query.raw, page: String(page), page_size: String(query.pageSize) });
  return link(ctx.baseUrl, `${SEARCH_PATH}?${params.toString()}`, rel);
}

export async function searchTransactions(ctx: ServiceContext, query: SearchQuery): Promise<TransactionSearch> {
  const { total: totalItems, stretches } = await store.countMovements(ctx.db, ctx.accountId, query);
  const totalPages = Math.ceil(totalItems / query.pageSize);
  if (query.page > Math.max(totalPages, 1)) {
    throw serviceError('INVALID_REQUEST', 'PAGE_OUT_OF_RANGE', `page is past the last page (${totalPages} of ${query.pageSize} items).`, {
      field: 'page',
      value: String(query.page),
      location: 'query',
    });
  }
  const rows = totalItems === 0 ? [] : await store.pageOfMovements(ctx.db, ctx.accountId, query, stretches);
  const withoutEndingBalance = query.filtered;
  const links = [pageLink(ctx, query, query.page, 'self')];
  if (totalPages > 1) links.push(pageLink(ctx, query, 1, 'first'), pageLink(ctx, query, totalPages, 'last'));
  if (query.page < totalPages) links.push(pageLink(ctx, query, query.page + 1, 'next'));
  if (query.page > 1) links.push(pageLink(ctx, query, query.page - 1, 'prev'));
  const orders = await orderPartsOf(ctx, rows, query.fields);
  const details = rows.map((row) => ({
    ...(query.fields.has('transaction_info') ? { transaction_info: transactionInfo(row, { withoutEndingBalance }) } : {}),
    ...orders.get(BigInt(row.seq)),
  }));
  return {
    // The published file wants at least one detail when the list is there: none found, none listed.
    ...(details.length > 0 ? { transaction_details: details } : {}),
    account_number: ctx.accountId,
    start_date: reportTime(query.start),
    end_date: reportTime(query.end),
    last_refreshed_datetime: isoSeconds(ctx.now),
    page: query.page,
    total_items: totalItems,
    total_pages: totalPages,
    links,
  };
}

export async function listBalances(ctx: ServiceContext, query: BalancesQuery): Promise<BalancesResponse> {
  const asOf = query.asOf ?? storedTime(ctx.now);
  const currencies = query.currency !== undefined ? [query.currency] : await store.balanceCurrencies(ctx.db, ctx.accountId);
  const balances: BalanceDetail[] = [];
  for (const currency of currencies) {
    const total = await store.balanceAt(ctx.db, ctx.accountId, currency, asOf);
    if (total === undefined) continue;
    // The ledger holds nothing back (a dispute takes money only once it is lost): nothing is withheld.
    balances.push({
      currency,
      total_balance: money(total, currency),
      available_balance: money(total, currency),
      withheld_balance: money(0n, currency),
    });
  }
  return { balances, account_id: ctx.accountId, as_of_time: reportTime(asOf), last_refresh_time: isoSeconds(ctx.now) };
}
