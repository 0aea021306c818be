// The parts of an invoice as the API shows them (field names and optionality as the published
// invoicing schema; a field we always send is required here). Built by resource.ts and pricing.ts.

import type { Money } from '../../lib/money.js';
import type { Link } from '../http/links.js';
import type { InvoiceMetadata } from './resource.js';
import type { InvoiceInput, ItemInput, PaymentInput, TemplateInput, UNITS_OF_MEASURE } from './schema.js';
import type { InvoiceStatus } from './states.js';

type TaxInput = NonNullable<ItemInput['tax']>;

/** A tax with the amount it comes to. */
export type InvoiceTax = TaxInput & { amount: Money };

/** A discount: its percent as given, and the amount it comes to. */
export interface InvoiceDiscount {
  percent?: string;
  amount: Money;
}

/** An item as returned: its id, the quantity as a canonical decimal, the tax and discount computed. */
export type InvoiceItem = Omit<ItemInput, 'tax' | 'discount' | 'unit_of_measure'> & {
  id: string;
  tax?: InvoiceTax;
  discount?: InvoiceDiscount;
  unit_of_measure: (typeof UNITS_OF_MEASURE)[number];
};

/** `detail`: the caller's detail with the stored number and date, and the metadata. */
export type InvoiceDetail = InvoiceInput['detail'] & {
  invoice_number: string;
  invoice_date: string;
  metadata: InvoiceMetadata;
};

/** `configuration`: the caller's, over the defaults. */
export type InvoiceConfiguration = NonNullable<InvoiceInput['configuration']> & {
  tax_calculated_after_discount: boolean;
  tax_inclusive: boolean;
  allow_tip: boolean;
  partial_payment: NonNullable<NonNullable<InvoiceInput['configuration']>['partial_payment']>;
};

/** `amount.breakdown`; discounts are positive amounts that were subtracted. */
export interface AmountBreakdown {
  item_total: Money;
  discount?: { item_discount: Money; invoice_discount?: InvoiceDiscount };
  tax_total: Money;
  shipping?: { amount: Money; tax?: InvoiceTax };
  custom?: { label: string; amount: Money };
}

/** `amount`: the total, and what it is made of. */
export interface InvoiceAmount {
  currency_code: string;
  value: string;
  breakdown: AmountBreakdown;
}

/** A recorded payment (`payments.transactions[]`). */
export interface InvoicePaymentDetail {
  payment_id: string;
  type: string;
  method: string;
  payment_date: string;
  payment_date_time: string;
  note?: string;
  shipping_info?: PaymentInput['shipping_info'];
  amount: Money;
}

/** A recorded refund (`refunds.transactions[]`). */
export interface InvoiceRefundDetail {
  refund_id: string;
  type: string;
  method: string;
  refund_date: string;
  amount: Money;
}

/** An invoice of a list read with `fields=none`: its id, status, number and currency. */
export interface InvoiceSummary {
  id: string;
  status: InvoiceStatus;
  detail: { invoice_number: string; currency_code: string };
  links: Link[];
}

type TemplateInfoInput = NonNullable<TemplateInput['template_info']>;

/** A template's `detail`: the caller's (all of it optional on a template) with the metadata. */
export type TemplateDetail = Partial<NonNullable<TemplateInfoInput['detail']>> & {
  metadata: { create_time: string; last_update_time: string };
};

/** A template's `template_info`: the caller's, its detail with the metadata. */
export type TemplateInfo = Omit<TemplateInfoInput, 'detail'> & { detail: TemplateDetail };

/** A template's `settings`, as the caller gave them (the system templates' are seeded). */
export type TemplateSettings = NonNullable<TemplateInput['settings']>;
