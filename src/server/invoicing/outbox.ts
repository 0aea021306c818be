// The e-mail outbox: invoicing never sends mail, it records each message so a test (or a person
// running the sandbox) can read what the payer and the merchant would have received.

import { isoMillis } from '../core/clock.js';
import type { ServiceContext } from '../core/deps.js';
import { prefixedId } from '../core/ids.js';
import * as store from './store.js';

export type MessageKind = 'INVOICE' | 'REMINDER' | 'CANCELLATION' | 'UPDATE' | 'RECEIPT' | 'INVOICER_COPY';

export interface OutgoingMessage {
  kind: MessageKind;
  invoiceId: string;
  to: readonly string[];
  subject: string;
  body: string;
}

/** Records one message per distinct address (case-insensitive). */
export async function recordMessages(ctx: ServiceContext, message: OutgoingMessage): Promise<number> {
  const seen = new Set<string>();
  let count = 0;
  for (const address of message.to) {
    const key = address.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    await store.insertOutboxMessage(ctx.db, {
      id: prefixedId(ctx.deps.ids, 'MSG', 17),
      account_id: ctx.accountId,
      invoice_id: message.invoiceId,
      kind: message.kind,
      to_address: address,
      subject: message.subject,
      body: message.body,
      create_time: isoMillis(ctx.now),
    });
    count += 1;
  }
  return count;
}

export interface OutboxMessage {
  id: string;
  invoice_id: string | null;
  kind: string;
  to: string;
  subject: string;
  body: string;
  create_time: string;
}

export async function listMessages(ctx: ServiceContext, options: { limit: number; invoiceId?: string }): Promise<{ messages: OutboxMessage[] }> {
  const rows = await store.listOutbox(ctx.db, ctx.accountId, options.limit, options.invoiceId);
  return {
    messages: rows.map((row) => ({
      id: row.id,
      invoice_id: row.invoice_id,
      kind: row.kind,
      to: row.to_address,
      subject: row.subject,
      body: row.body,
      create_time: row.create_time,
    })),
  };
}
