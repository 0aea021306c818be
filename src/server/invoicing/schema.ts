// Request schemas of the invoicing API: templates, invoices, actions, list and search queries.

import { z } from 'zod';
import { strictDecimal, type DecimalSign } from '../http/decimals.js';
import { calendarDateSchema, dateTimeSchema, utcTimestampSchema, optionalStrings, portableAddressSchema, queryBoolean, queryInteger } from '../http/validation.js';
import { MAX_DECIMALS } from './amounts.js';

const issue = (name: string) => ({ params: { issue: name } });

export const UNITS_OF_MEASURE = ['QUANTITY', 'HOURS', 'AMOUNT'] as const;

export const PAYMENT_TERMS = [
  'DUE_ON_RECEIPT',
  'DUE_ON_DATE_SPECIFIED',
  'NET_10',
  'NET_15',
  'NET_30',
  'NET_45',
  'NET_60',
  'NET_90',
  'NO_DUE_DATE',
] as const;

/** The transaction methods; `PLATFORM` is the provider's own wallet. */
export const TRANSACTION_METHODS = [
  'BANK_TRANSFER',
  'CASH',
  'CHECK',
  'CREDIT_CARD',
  'DEBIT_CARD',
  'PLATFORM',
  'WIRE_TRANSFER',
  'OTHER',
] as const;

const methodSchema = (invalidIssue: string) =>
  z.string().superRefine((method, ctx) => {
    if (method.length > 255) {
      ctx.addIssue({ code: 'custom', message: 'The method is at most 255 characters.', ...issue('INVALID_STRING_MAX_LENGTH') });
    } else if (!(TRANSACTION_METHODS as readonly string[]).includes(method)) {
      ctx.addIssue({ code: 'custom', message: `The method must be one of ${TRANSACTION_METHODS.join(', ')}.`, ...issue(invalidIssue) });
    }
  });

export const INVOICE_STATUSES = [
  'DRAFT',
  'SENT',
  'SCHEDULED',
  'PAID',
  'MARKED_AS_PAID',
  'CANCELLED',
  'REFUNDED',
  'PARTIALLY_PAID',
  'PARTIALLY_REFUNDED',
  'MARKED_AS_REFUNDED',
  'UNPAID',
  'PAYMENT_PENDING',
] as const;

export const dateSchema = calendarDateSchema();
const dateTimeValue = dateTimeSchema();

/** A three-letter currency code; a code of another length is INVALID_STRING_LENGTH. */
const currencyCodeSchema = z.string().superRefine((code, ctx) => {
  if (code.length !== 3) ctx.addIssue({ code: 'custom', message: 'The currency code must be 3 characters.', ...issue('INVALID_STRING_LENGTH') });
});

/**
 * Money as sent: a three-letter currency and a strict decimal with the field's sign. The currency's
 * decimals and the 15 integer digits are checked where the amount is read in that currency (pricing.ts).
 */
const moneyWith = (sign: DecimalSign) =>
  z.object({
    currency_code: currencyCodeSchema,
    value: strictDecimal({ sign }),
  });
export const moneySchema = moneyWith('any');
export const percentSchema = strictDecimal({ sign: 'non-negative', maxDecimals: MAX_DECIMALS, max: '100' }, 10);
// Positive: a negative quantity made taxes and discounts of a line meaningless (and the tax rounding threw).
const quantitySchema = strictDecimal({ sign: 'positive', maxDecimals: MAX_DECIMALS, max: '1000000' }, 14);

export const emailSchema = z.string().min(3).max(254).regex(/^.+@[^"\-].+$/, 'Expected an e-mail address.');

const nameSchema = z.object({
  ...optionalStrings({ prefix: 140, given_name: 140, surname: 140, middle_name: 140, suffix: 140 }),
  ...optionalStrings({ alternate_full_name: 300, full_name: 300 }),
});

const addressSchema = portableAddressSchema().extend({
  address_details: z
    .object(optionalStrings({ street_number: 100, street_name: 100, street_type: 100, delivery_service: 100, building_name: 100, sub_building: 100 }))
    .optional(),
});

const phoneSchema = z.object({
  country_code: z.string().regex(/^[0-9]{1,3}$/, 'Expected 1 to 3 digits.'),
  national_number: z.string().regex(/^[0-9]{1,14}$/, 'Expected 1 to 14 digits.'),
  extension_number: z.string().regex(/^[0-9]{1,15}$/, 'Expected 1 to 15 digits.').optional(),
  phone_type: z.enum(['FAX', 'HOME', 'MOBILE', 'OTHER', 'PAGER']),
});

const contactSchema = z.object({
  business_name: z.string().max(300).optional(),
  name: nameSchema.optional(),
  address: addressSchema.optional(),
});

const invoicerSchema = contactSchema.extend({
  email_address: emailSchema.optional(),
  phones: z.array(phoneSchema).max(20).optional(),
  website: z.string().max(2048).optional(),
  tax_id: z.string().max(100).optional(),
  additional_notes: z.string().max(400).optional(),
  logo_url: z.string().max(2000).optional(),
});

const recipientSchema = z.object({
  billing_info: contactSchema
    .extend({
      email_address: emailSchema.optional(),
      phones: z.array(phoneSchema).max(20).optional(),
      additional_info: z.string().max(40).optional(),
      language: z
        .string()
        .min(2)
        .max(10)
        .regex(/^[a-z]{2}(?:-[A-Z][a-z]{3})?(?:-(?:[A-Z]{2}))?$/, 'Expected a language tag such as en-US.')
        .optional(),
    })
    .optional(),
  shipping_info: contactSchema.optional(),
});

// tax_note (spec 2.6) is kept as given and shown back.
const taxSchema = z.object({ name: z.string().max(100), percent: percentSchema, tax_note: z.string().min(1).max(100).optional() });
const discountSchema = z.object({ percent: percentSchema.optional(), amount: moneyWith('non-negative').optional() });

const itemSchema = z.object({
  name: z.string().min(1).max(200),
  description: z.string().max(1000).optional(),
  quantity: quantitySchema,
  unit_amount: moneyWith('non-negative'),
  tax: taxSchema.optional(),
  item_date: dateSchema.optional(),
  discount: discountSchema.optional(),
  unit_of_measure: z.enum(UNITS_OF_MEASURE).optional(),
});
const attachmentSchema = z.object({
  id: z.string().min(1).max(255).optional(),
  reference_url: z.string().min(1).max(2000).optional(),
  content_type: z.string().max(255).optional(),
  create_time: dateTimeValue.optional(),
  size: z.string().regex(/^[0-9]+$/).optional(),
});

const commonDetail = {
  currency_code: currencyCodeSchema,
  reference: z.string().max(120).optional(),
  note: z.string().max(4000).optional(),
  terms_and_conditions: z.string().max(4000).optional(),
  memo: z.string().max(500).optional(),
  attachments: z.array(attachmentSchema).max(5).optional(),
};

const partialPaymentSchema = z.object({
  allow_partial_payment: z.boolean().optional(),
  minimum_amount_due: moneyWith('positive').optional(),
});

const templateConfigurationShape = {
  tax_calculated_after_discount: z.boolean().optional(),
  tax_inclusive: z.boolean().optional(),
  allow_tip: z.boolean().optional(),
  partial_payment: partialPaymentSchema.optional(),
  has_conditional_rule: z.boolean().optional(),
};

/** What callers may set in `amount`: the rest of the breakdown is computed. */
const amountInputSchema = z.object({
  breakdown: z
    .object({
      discount: z.object({ invoice_discount: discountSchema.optional() }).optional(),
      shipping: z.object({ amount: moneyWith('non-negative').optional(), tax: taxSchema.optional() }).optional(),
      custom: z.object({ label: z.string().min(1).max(50), amount: moneySchema.optional() }).optional(),
    })
    .optional(),
});
const contentShape = {
  invoicer: invoicerSchema.optional(),
  primary_recipients: z.array(recipientSchema).max(100).optional(),
  additional_recipients: z.array(emailSchema).max(100).optional(),
  items: z.array(itemSchema).max(100).optional(),
  amount: amountInputSchema.optional(),
};

export const templateInfoSchema = z.object({
  detail: z
    .object({ ...commonDetail, payment_term: z.object({ term_type: z.enum(PAYMENT_TERMS).optional() }).optional() })
    .optional(),
  ...contentShape,
  configuration: z.object(templateConfigurationShape).optional(),
});
const settingsSchema = z.object({
  template_item_settings: z
    .array(
      z.object({
        field_name: z.enum(['ITEMS_QUANTITY', 'ITEMS_DESCRIPTION', 'ITEMS_DATE', 'ITEMS_DISCOUNT', 'ITEMS_TAX']).optional(),
        display_preference: z.object({ hidden: z.boolean().optional() }).optional(),
      }),
    )
    .max(20)
    .optional(),
  template_subtotal_settings: z
    .array(
      z.object({
        field_name: z.enum(['DISCOUNT', 'SHIPPING', 'CUSTOM']).optional(),
        display_preference: z.object({ hidden: z.boolean().optional() }).optional(),
      }),
    )
    .max(20)
    .optional(),
});

/** A whole template: what POST creates and PUT replaces (id, links and standard_template are the server's). */
export const templateSchema = z.object({
  name: z.string().min(1).max(500),
  default_template: z.boolean().optional(),
  template_info: templateInfoSchema.optional(),
  settings: settingsSchema.optional(),
  unit_of_measure: z.enum(UNITS_OF_MEASURE).optional(),
});
export const invoiceDetailSchema = z.object({
  ...commonDetail,
  invoice_number: z.string().min(1).max(25).optional(),
  invoice_date: dateSchema.optional(),
  payment_term: z.object({ term_type: z.enum(PAYMENT_TERMS).optional(), due_date: dateSchema.optional() }).optional(),
});

/** A whole invoice: what POST creates and PUT replaces (status, totals, payments are the server's). */
export const invoiceSchema = z.object({
  detail: invoiceDetailSchema,
  ...contentShape,
  configuration: z.object({ ...templateConfigurationShape, template_id: z.string().max(30).optional() }).optional(),
});
export const invoiceIdParams = z.object({ invoice_id: z.string().min(1).max(100) });
export const templateIdParams = z.object({ template_id: z.string().min(1).max(100) });
export const transactionParams = z.object({
  invoice_id: z.string().min(1).max(100),
  transaction_id: z.string().min(1).max(100),
});

export const listQuerySchema = z.object({
  page: queryInteger(1, 1000).optional(),
  page_size: queryInteger(1, 100).optional(),
  total_required: queryBoolean().optional(),
  fields: z.string().regex(/^(all|none)$/, 'Expected "all" or "none".').optional(),
});

export const updateQuerySchema = z.object({
  send_to_recipient: queryBoolean().optional(),
  send_to_invoicer: queryBoolean().optional(),
});

export const refundSchema = z.object({
  method: methodSchema('INVALID_REFUND_METHOD'),
  refund_date: dateSchema.optional(),
  amount: moneySchema.optional(),
});
export const paymentSchema = z.object({
  method: methodSchema('INVALID_PAYMENT_METHOD'),
  payment_id: z.string().min(1).max(22).regex(/^[0-9A-Za-z_-]+$/, 'Expected letters, digits, _ or -.').optional(),
  payment_date: dateSchema.optional(),
  note: z.string().max(2000).optional(),
  amount: moneySchema.optional(),
  shipping_info: contactSchema.optional(),
});
export const notificationSchema = z.object({
  subject: z.string().max(4000).optional(),
  note: z.string().max(4000).optional(),
  send_to_invoicer: z.boolean().optional(),
  send_to_recipient: z.boolean().optional(),
  additional_recipients: z.array(emailSchema).max(100).optional(),
});
export const qrSchema = z.object({
  width: z.number().int().min(150).max(500).optional(),
  height: z.number().int().min(150).max(500).optional(),
  action: z.string().max(7).regex(/^(pay|details)$/i, 'Expected "pay" or "details".').optional(),
});

const dateRange = z.object({ start: dateSchema, end: dateSchema });
// Compared with stored creation times, which are UTC with milliseconds.
const dateTimeRange = z.object({ start: utcTimestampSchema(), end: utcTimestampSchema() });

export const searchSchema = z.object({
  ...optionalStrings({ recipient_email: 254, recipient_first_name: 140, recipient_last_name: 140, recipient_business_name: 300, invoice_number: 25 }),
  status: z.array(z.enum(INVOICE_STATUSES)).max(5).optional(),
  reference: z.string().max(120).optional(),
  currency_code: currencyCodeSchema.optional(),
  memo: z.string().max(500).optional(),
  total_amount_range: z.object({ lower_amount: moneySchema, upper_amount: moneySchema }).optional(),
  invoice_date_range: dateRange.optional(),
  due_date_range: dateRange.optional(),
  payment_date_range: dateTimeRange.optional(),
  creation_date_range: dateTimeRange.optional(),
  archived: z.boolean().optional(),
  fields: z.array(z.string().max(100)).max(50).optional(),
});
export const searchQuerySchema = z.object({
  page: queryInteger(1, 1000).optional(),
  page_size: queryInteger(1, 100).optional(),
  total_required: queryBoolean().optional(),
});

export const templateListQuerySchema = z.object({
  page: queryInteger(1, 1000).optional(),
  page_size: queryInteger(1, 100).optional(),
  fields: z.string().regex(/^(all|none)$/i, 'Expected "all" or "none".').optional(),
});

export type MoneyInput = z.infer<typeof moneySchema>;
export type ItemInput = z.infer<typeof itemSchema>;
export type AmountInputBody = z.infer<typeof amountInputSchema>;
export type TemplateInput = z.infer<typeof templateSchema>;
export type InvoiceInput = z.infer<typeof invoiceSchema>;
export type RefundInput = z.infer<typeof refundSchema>;
export type PaymentInput = z.infer<typeof paymentSchema>;
export type NotificationInput = z.infer<typeof notificationSchema>;
export type SearchInput = z.infer<typeof searchSchema>;
