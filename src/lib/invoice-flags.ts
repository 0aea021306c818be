// The e-mail options that send, remind and cancel of an invoice share, as flags and as the API body.

import { Flags } from '@oclif/core';
import type { Notification } from './api/invoices.js';

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
