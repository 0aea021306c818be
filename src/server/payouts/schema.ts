// Request schemas for payouts: the create body (every bad item named by its JSON pointer), queries, paths.

import { z } from 'zod';
import { MoneyParseError, isSupportedCurrency, toMinorUnits } from '../../lib/money.js';
import { ServiceError, type ErrorDetail } from '../http/errors.js';
import { decimalProblem, strictDecimal } from '../http/decimals.js';
import { queryBoolean, queryInteger, toDetails } from '../http/validation.js';

export const MAX_BATCH_ITEMS = 15_000;

export const HEADER_RECIPIENT_TYPES = ['EMAIL', 'PHONE', 'PAYPAL_ID'] as const;
export const ITEM_RECIPIENT_TYPES = ['EMAIL', 'PHONE', 'PAYPAL_ID', 'USER_HANDLE'] as const;
export type RecipientType = (typeof ITEM_RECIPIENT_TYPES)[number];
export const RECIPIENT_WALLETS = ['PAYPAL', 'VENMO', 'RECIPIENT_SELECTED'] as const;
export const PURPOSES = [
  'AWARDS',
  'PRIZES',
  'DONATIONS',
  'GOODS',
  'SERVICES',
  'REBATES',
  'CASHBACK',
  'DISCOUNTS',
  'NON_GOODS_OR_SERVICES',
] as const;

const EMAIL_PATTERN = /^[^@\s]{1,64}@[^@\s]+\.[^@\s]+$/;
const PAYER_ID_PATTERN = /^[2-9A-HJ-NP-Z]{13}$/;

const issue = (name: string) => ({ params: { issue: name } });

const asRecord = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;

/** Checks that need the header and the item together: the recipient type and the receiver's form. */
function recipientDetails(body: unknown): ErrorDetail[] {
  const root = asRecord(body);
  const items = root?.items;
  if (!Array.isArray(items) || items.length > MAX_BATCH_ITEMS) return [];
  const given = asRecord(root?.sender_batch_header)?.recipient_type;
  // An invalid header type is reported on the header; it is no default for the items.
  const headerType = (HEADER_RECIPIENT_TYPES as readonly unknown[]).includes(given) ? given : undefined;
  const details: ErrorDetail[] = [];
  items.forEach((raw, index) => {
    const item = asRecord(raw);
    if (!item) return;
    const type = item.recipient_type ?? headerType;
    if (type === undefined) {
      details.push({
        field: `/items/${index}/recipient_type`,
        location: 'body',
        issue: 'MISSING_REQUIRED_PARAMETER',
        description: 'Give recipient_type on the item or in sender_batch_header.',
      });
      return;
    }
    const receiver = item.receiver;
    if (typeof receiver !== 'string' || receiver.length === 0 || receiver.length > 127) return;
    const malformed =
      (type === 'EMAIL' && !EMAIL_PATTERN.test(receiver)) || (type === 'PAYPAL_ID' && !PAYER_ID_PATTERN.test(receiver));
    if (malformed) {
      details.push({
        field: `/items/${index}/receiver`,
        value: receiver,
        location: 'body',
        issue: 'INVALID_PARAMETER_SYNTAX',
        description: type === 'EMAIL' ? 'The receiver is not an e-mail address.' : 'The receiver is not a 13-character account id.',
      });
    }
  });
  return details;
}

/** Parses a create request, or throws INVALID_REQUEST naming every bad field of every item. */
export function parseCreatePayout(body: unknown): CreatePayoutRequest {
  const input = body ?? {};
  const result = createPayoutSchema.safeParse(input);
  const details = [...(result.success ? [] : toDetails(result.error, input, 'body')), ...recipientDetails(input)];
  if (details.length > 0 || !result.success) throw new ServiceError('INVALID_REQUEST', details);
  return result.data;
}

/** Payouts money is `{ currency, value }`; value and currency are checked together. */
const payoutAmount = z
  .object({
    currency: z.string().regex(/^[A-Z]{3}$/, 'Expected a three-letter upper-case currency code.'),
    // Canonical syntax here; the currency's decimals, the size and the sign in the refinement below.
    value: strictDecimal({ sign: 'any' }),
  })
  .superRefine((amount, ctx) => {
    if (!isSupportedCurrency(amount.currency)) {
      ctx.addIssue({ code: 'custom', path: ['currency'], message: `Currency ${amount.currency} is not supported.`, ...issue('CURRENCY_NOT_SUPPORTED') });
      return;
    }
    // Malformed text is already named by the value's own check.
    if (decimalProblem(amount.value, { sign: 'any' })) return;
    try {
      if (toMinorUnits(amount.value, amount.currency) <= 0n) {
        ctx.addIssue({ code: 'custom', path: ['value'], message: 'The amount must be greater than zero.', ...issue('CANNOT_BE_ZERO_OR_NEGATIVE') });
      }
    } catch (error) {
      if (!(error instanceof MoneyParseError)) throw error;
      ctx.addIssue({ code: 'custom', path: ['value'], message: error.message, ...issue(error.issue) });
    }
  });

/** At most 4000 characters, or 1000 when the note is not plain ASCII. */
const itemNote = z
  .string()
  .max(4000)
  .refine((note) => /^[\x00-\x7f]*$/.test(note) || note.length <= 1000, {
    message: 'A note with non-ASCII characters may have at most 1000 characters.',
    ...issue('INVALID_STRING_MAX_LENGTH'),
  });

const phone = z.object({
  country_code: z.string().regex(/^[0-9]{1,3}$/),
  national_number: z.string().regex(/^[0-9]{1,14}$/),
  extension_number: z.string().regex(/^[0-9]{1,15}$/).optional(),
});

const payoutItemSchema = z.object({
  recipient_type: z.enum(ITEM_RECIPIENT_TYPES).optional(),
  amount: payoutAmount,
  receiver: z.string().min(1).max(127),
  note: itemNote.optional(),
  sender_item_id: z.string().max(63).optional(),
  recipient_wallet: z.enum(RECIPIENT_WALLETS).optional(),
  purpose: z.enum(PURPOSES).optional(),
  notification_language: z
    .string()
    .regex(/^[a-z]{2}(?:-[A-Z][a-z]{3})?(?:-(?:[A-Z]{2}))?$/)
    .max(10)
    .optional(),
  alternate_notification_method: z.object({ phone: phone.optional() }).optional(),
  application_context: z
    .object({
      social_feed_privacy: z.string().min(1).max(15).optional(),
      holler_url: z.string().url().max(1000).optional(),
      logo_url: z.string().url().max(1000).optional(),
    })
    .optional(),
});

const senderBatchHeaderSchema = z.object({
  sender_batch_id: z.string().max(256).optional(),
  recipient_type: z.enum(HEADER_RECIPIENT_TYPES).optional(),
  email_subject: z.string().max(255).optional(),
  email_message: z.string().max(1000).optional(),
  note: z.string().max(1000).optional(),
});

export const createPayoutSchema = z.object({
  sender_batch_header: senderBatchHeaderSchema,
  items: z.array(payoutItemSchema).min(1).max(MAX_BATCH_ITEMS),
});

export const batchQuerySchema = z.object({
  page: queryInteger(0, 1000).optional(),
  page_size: queryInteger(0, 1000).optional(),
  total_required: queryBoolean().optional(),
  fields: z.string().min(1).max(1000).optional(),
});

export const batchPathSchema = z.object({ id: z.string().min(1).max(1000) });
export const itemPathSchema = z.object({ payout_item_id: z.string().min(1).max(32) });

/** A sandbox top-up of the merchant balance: the same `{ currency, value }` with the same checks. */
export const topUpSchema = payoutAmount;

export type CreatePayoutRequest = z.infer<typeof createPayoutSchema>;
export type PayoutItemRequest = z.infer<typeof payoutItemSchema>;
