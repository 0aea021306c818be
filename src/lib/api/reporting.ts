// /v1/reporting: transaction search (every movement of the balance) and balances, one function each.

import { z } from 'zod';
import type { ApiClient } from './client.js';
import { linkSchema, moneySchema } from './types.js';

export const transactionInfoSchema = z.looseObject({
  transaction_id: z.string().optional(),
  paypal_reference_id: z.string().optional(),
  paypal_reference_id_type: z.string().optional(),
  transaction_event_code: z.string().optional(),
  transaction_initiation_date: z.string().optional(),
  transaction_updated_date: z.string().optional(),
  transaction_amount: moneySchema.optional(),
  fee_amount: moneySchema.optional(),
  transaction_status: z.string().optional(),
  transaction_subject: z.string().optional(),
  ending_balance: moneySchema.optional(),
  available_balance: moneySchema.optional(),
  invoice_id: z.string().optional(),
  custom_field: z.string().optional(),
});
export type TransactionInfo = z.infer<typeof transactionInfoSchema>;

export const transactionDetailSchema = z.looseObject({
  transaction_info: transactionInfoSchema.optional(),
  payer_info: z.looseObject({}).optional(),
  shipping_info: z.looseObject({}).optional(),
  cart_info: z.looseObject({}).optional(),
});
export type TransactionDetail = z.infer<typeof transactionDetailSchema>;

const transactionPageSchema = z.looseObject({
  // The published file says at least one item; an empty search answers [] or leaves it out.
  transaction_details: z.array(transactionDetailSchema).default([]),
  account_number: z.string().optional(),
  start_date: z.string().optional(),
  end_date: z.string().optional(),
  last_refreshed_datetime: z.string().optional(),
  page: z.number().optional(),
  total_items: z.number().optional(),
  total_pages: z.number().optional(),
  links: z.array(linkSchema).optional(),
});
export type TransactionPage = z.infer<typeof transactionPageSchema>;

/** The query of GET /v1/reporting/transactions, in the API's names. */
export interface TransactionQuery {
  start_date: string;
  end_date: string;
  transaction_id?: string;
  transaction_type?: string;
  transaction_status?: string;
  /** `A TO B` in minor units. */
  transaction_amount?: string;
  transaction_currency?: string;
  fields?: string;
  balance_affecting_records_only?: 'Y' | 'N';
  page?: number;
  page_size?: number;
}

export interface TransactionSearchResult {
  page: TransactionPage;
  /** The body exactly as received, for --json. */
  raw: unknown;
}

/** GET /v1/reporting/transactions: one page of one window of at most 31 days. */
export async function searchTransactions(client: ApiClient, query: TransactionQuery): Promise<TransactionSearchResult> {
  const response = await client.request({ method: 'GET', path: '/v1/reporting/transactions', query: { ...query } });
  return { page: transactionPageSchema.parse(response.body), raw: response.body };
}

const balanceSchema = z.looseObject({
  currency: z.string(),
  primary: z.boolean().optional(),
  total_balance: moneySchema,
  available_balance: moneySchema.optional(),
  withheld_balance: moneySchema.optional(),
});
export type Balance = z.infer<typeof balanceSchema>;

const balancesSchema = z.looseObject({
  balances: z.array(balanceSchema).default([]),
  account_id: z.string().optional(),
  as_of_time: z.string().optional(),
  last_refresh_time: z.string().optional(),
});
export type Balances = z.infer<typeof balancesSchema>;

export interface BalanceQuery {
  as_of_time?: string;
  currency_code?: string;
}

/** GET /v1/reporting/balances: total, available and withheld per currency, now or at `as_of_time`. */
export async function getBalances(client: ApiClient, query: BalanceQuery = {}): Promise<{ balances: Balances; raw: unknown }> {
  const response = await client.request({ method: 'GET', path: '/v1/reporting/balances', query: { ...query } });
  return { balances: balancesSchema.parse(response.body), raw: response.body };
}
