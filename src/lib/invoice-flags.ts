// Flags that several invoice commands share, and the API bodies built from them: the e-mail options
// of send, remind and cancel; the method and amount of a payment or refund recorded by hand.

import { Flags } from '@oclif/core';
import type { ApiClient } from './api/client.js';
import { getInvoice, type Notification } from './api/invoices.js';
import { currencyFlag, moneyFromFlags } from './flags.js';
import type { Money } from './money.js';

/** How money moved outside the invoice's payment page (`record-payment`, `refund`). */
export const RECORDED_METHODS = ['BANK_TRANSFER', 'CASH', 'CHECK', 'CREDIT_CARD', 'DEBIT_CARD', 'PLATFORM', 'WIRE_TRANSFER', 'OTHER'];

/** --amount and --currency of a payment or refund recorded by hand (the default amount is the command's). */
export const recordedAmountFlags = {
  amount: Flags.string({ description: 'Amount as a decimal string, e.g. 12.34 (default: see above)' }),
  currency: currencyFlag({ description: "Currency of --amount (default: the invoice's)" }),
};

/** The --amount in --currency, else in the invoice's currency (read once); undefined without --amount. */
export async function recordedAmount(
  client: ApiClient,
  invoiceId: string,
  flags: { amount?: string | undefined; currency?: string | undefined },
): Promise<Money | undefined> {
  if (!flags.amount) return undefined;
  const currency = flags.currency ?? (await getInvoice(client, invoiceId)).detail.currency_code ?? 'USD';
  return moneyFromFlags(flags.amount, currency);
}

export function notificationFlags(noEmailDescription = 'Do not e-mail the recipient') {
  return {
    subject: Flags.string({ description: 'E-mail subject' }),
    note: Flags.string({ description: 'Note in the e-mail' }),
    cc: Flags.string({ description: 'Also send to this address (repeatable)', multiple: true }),
    'copy-me': Flags.boolean({ description: 'Send a copy to the invoicer' }),
    'no-email': Flags.boolean({ description: noEmailDescription }),
  };
}

export interface NotificationFlagValues {
  subject?: string | undefined;
  note?: string | undefined;
  cc?: string[] | undefined;
  'copy-me'?: boolean | undefined;
  'no-email'?: boolean | undefined;
}

export function notificationFromFlags(flags: NotificationFlagValues): Notification {
  return {
    ...(flags.subject ? { subject: flags.subject } : {}),
    ...(flags.note ? { note: flags.note } : {}),
    ...(flags.cc?.length ? { additional_recipients: flags.cc } : {}),
    ...(flags['copy-me'] ? { send_to_invoicer: true } : {}),
    ...(flags['no-email'] ? { send_to_recipient: false } : {}),
  };
}
