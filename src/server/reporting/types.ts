// The reports as the API shows them (field names and optionality as the published reporting
// schema; a field we always send is required here). present.ts, order-info.ts and service.ts build them.

import type { Money } from '../../lib/money.js';
import type { Link } from '../http/links.js';

/** `transaction_info`: one balance movement. */
export interface TransactionInfo {
  transaction_id: string;
  paypal_reference_id?: string;
  paypal_reference_id_type?: 'TXN';
  transaction_event_code: string;
  transaction_initiation_date: string;
  transaction_updated_date: string;
  transaction_amount: Money;
  fee_amount?: Money;
  transaction_status: string;
  /** Left out when an optional filter was given (as the published API does). */
  ending_balance?: Money;
  available_balance: Money;
  invoice_id?: string;
  custom_field?: string;
  instrument_type?: 'CREDIT_CARD';
}

/** `payer_info`: what the order knows of its payer. */
export interface PayerInfo {
  account_id?: string;
  email_address?: string;
  payer_name?: { given_name?: string; surname?: string };
  country_code?: string;
}

/** A report's address: a first line, a city and a country at least. */
export interface ReportAddress {
  line1: string;
  line2?: string;
  city: string;
  state?: string;
  country_code: string;
  postal_code?: string;
}

/** `shipping_info`: where the order's purchase unit ships to. */
export interface ShippingInfo {
  name?: string;
  address?: ReportAddress;
}

/** One of `cart_info.item_details`: an item of the order's purchase unit. */
export interface CartItemDetail {
  item_code?: string;
  item_name?: string;
  item_description?: string;
  item_quantity?: string;
  item_unit_price?: Money;
}

/** `cart_info`. */
export interface CartInfo {
  item_details: CartItemDetail[];
}

/** The parts of a transaction detail read from the payment's order (only those asked for). */
export interface OrderParts {
  payer_info?: PayerInfo;
  shipping_info?: ShippingInfo;
  cart_info?: CartInfo;
}

/** `transaction_details[]`. */
export type TransactionDetail = { transaction_info?: TransactionInfo } & OrderParts;

/** GET /v1/reporting/transactions. */
export interface TransactionSearch {
  /** Left out when nothing was found (the published file wants at least one detail when it is there). */
  transaction_details?: TransactionDetail[];
  account_number: string;
  start_date: string;
  end_date: string;
  last_refreshed_datetime: string;
  page: number;
  total_items: number;
  total_pages: number;
  links: Link[];
}

/** One currency of GET /v1/reporting/balances. */
export interface BalanceDetail {
  currency: string;
  total_balance: Money;
  available_balance: Money;
  withheld_balance: Money;
}

/** GET /v1/reporting/balances. */
export interface BalancesResponse {
  balances: BalanceDetail[];
  account_id: string;
  as_of_time: string;
  last_refresh_time: string;
}
