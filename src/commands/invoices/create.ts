import { readFile } from 'node:fs/promises';
import { Flags } from '@oclif/core';
import { UsageError } from '../../lib/api/errors.js';
import { createInvoice, type Invoice } from '../../lib/api/invoices.js';
import { getTemplate } from '../../lib/api/templates.js';
import { BaseCommand } from '../../lib/base-command.js';
import { currencyFlag, requestIdFlag } from '../../lib/flags.js';
import { MoneyParseError, canonicalDecimal, toMinorUnits } from '../../lib/money.js';
import { formatMoney } from '../../lib/render/format.js';
import { readStdin } from '../../lib/stdin.js';

const TERMS = ['DUE_ON_RECEIPT', 'NET_10', 'NET_15', 'NET_30', 'NET_45', 'NET_60', 'NET_90', 'NO_DUE_DATE'];
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const QUANTITY = /^\d{1,7}(\.\d{1,5})?$/;

/** "Name:qty:price" (the name may hold colons: the last two fields are quantity and price). */
export function parseItem(text: string, currency: string): Record<string, unknown> {
  const parts = text.split(':');
  if (parts.length < 3) throw new UsageError(`--item expects "Name:quantity:unit price"; got "${text}"`);
  const price = parts.pop() as string;
  const quantity = parts.pop() as string;
  const name = parts.join(':').trim();
  if (!name) throw new UsageError(`--item "${text}" has no name`);
  if (!QUANTITY.test(quantity)) throw new UsageError(`--item "${text}": the quantity must be a number with at most 5 decimals`);
  try {
    toMinorUnits(price, currency);
  } catch (error) {
    if (error instanceof MoneyParseError) throw new UsageError(`--item "${text}": ${error.message}`);
    throw error;
  }
  return { name, quantity: canonicalDecimal(quantity), unit_amount: { currency_code: currency, value: canonicalDecimal(price) } };
}

async function readJson(file: string): Promise<unknown> {
  const text = file === '-' ? await readStdin() : await readFile(file, 'utf8').catch(() => {
    throw new UsageError(`cannot read ${file}`);
  });
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new UsageError(`${file === '-' ? 'stdin' : file} is not valid JSON`);
  }
}

export default class InvoicesCreate extends BaseCommand<typeof InvoicesCreate> {
  static override summary = 'Create a draft invoice from a JSON file or from flags';

  static override description = `Creates a DRAFT invoice. Either give the whole invoice as JSON with --file (the API's
invoice object; '-' reads stdin), or build the common case from flags: --recipient, one --item
"Name:quantity:unit price" per line, --currency, --due (a date or a term such as NET_30), an
optional --tax "Name:percent" for every item, or start from a template with --template ID (its
details, invoicer, items and settings; flags given win). The server works out the totals; send
the invoice with \`payctl invoices send\`.`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> --recipient ada@example.com --item "Consulting:10:150.00" --due NET_30',
    '<%= config.bin %> <%= command.id %> --recipient ada@example.com --item "Tea:3:333" --currency JPY --tax "VAT:10"',
    '<%= config.bin %> <%= command.id %> --template TEMP-4NH72LU5K4BVW6R2X --recipient ada@example.com --item "Hours:8:95.00"',
    '<%= config.bin %> <%= command.id %> --file invoice.json --json',
  ];

  static override flags = {
    file: Flags.string({ char: 'f', description: "The invoice as JSON ('-' reads stdin)", exclusive: ['item', 'template', 'recipient'] }),
    recipient: Flags.string({ description: "Payer's e-mail address" }),
    item: Flags.string({ description: 'A line: "Name:quantity:unit price" (repeatable)', multiple: true }),
    currency: currencyFlag(),
    tax: Flags.string({ description: 'Tax on every item: "Name:percent", e.g. "VAT:20"' }),
    due: Flags.string({ description: `Due date (YYYY-MM-DD) or term: ${TERMS.join(', ')}` }),
    date: Flags.string({ description: 'Invoice date (YYYY-MM-DD); a future date makes `send` schedule it' }),
    number: Flags.string({ description: 'Invoice number (default: the next one)' }),
    note: Flags.string({ description: 'Note to the recipient' }),
    template: Flags.string({ description: 'Start from this template' }),
    'request-id': requestIdFlag(),
  };

  async run(): Promise<Invoice> {
    const body = this.flags.file ? await readJson(this.flags.file) : await this.bodyFromFlags();
    const invoice = await createInvoice(this.client(), body, this.requestOptions());
    this.renderDetail([
      ['ID', invoice.id],
      ['Number', invoice.detail.invoice_number],
      ['Status', invoice.status, 'status'],
      ['Total', formatMoney(invoice.amount)],
      ['Due date', invoice.detail.payment_term?.due_date],
    ]);
    return invoice;
  }

  private async bodyFromFlags(): Promise<Record<string, unknown>> {
    const f = this.flags;
    if (!f.item?.length && !f.template) {
      throw new UsageError('nothing to invoice: pass --file, or --item "Name:quantity:price" (with --recipient), or --template');
    }
    const info = f.template ? ((await getTemplate(this.client(), f.template)).template_info ?? {}) : {};
    const templateDetail = { ...((info.detail as Record<string, unknown> | undefined) ?? {}) };
    delete templateDetail.metadata;
    const currency = f.currency ?? (typeof templateDetail.currency_code === 'string' ? templateDetail.currency_code : 'USD');
    const detail: Record<string, unknown> = { ...templateDetail, currency_code: currency };
    if (f.number) detail.invoice_number = f.number;
    if (f.note) detail.note = f.note;
    if (f.date) {
      if (!DATE.test(f.date)) throw new UsageError(`--date must be YYYY-MM-DD; got "${f.date}"`);
      detail.invoice_date = f.date;
    }
    if (f.due) {
      if (DATE.test(f.due)) detail.payment_term = { term_type: 'DUE_ON_DATE_SPECIFIED', due_date: f.due };
      else if (TERMS.includes(f.due.toUpperCase())) detail.payment_term = { term_type: f.due.toUpperCase() };
      else throw new UsageError(`--due must be a date (YYYY-MM-DD) or one of ${TERMS.join(', ')}; got "${f.due}"`);
    }
    let items = f.item?.length ? f.item.map((text) => parseItem(text, currency)) : ((info.items as Array<Record<string, unknown>> | undefined) ?? []);
    if (f.tax) {
      const [name, percent] = f.tax.split(':');
      if (!name || !percent || !/^\d{1,3}(\.\d{1,5})?$/.test(percent)) throw new UsageError(`--tax expects "Name:percent"; got "${f.tax}"`);
      items = items.map((item) => ({ ...item, tax: { name, percent: canonicalDecimal(percent) } }));
    }
    const body: Record<string, unknown> = { detail, items };
    if (info.invoicer) body.invoicer = info.invoicer;
    if (f.recipient) body.primary_recipients = [{ billing_info: { email_address: f.recipient } }];
    else if (info.primary_recipients) body.primary_recipients = info.primary_recipients;
    if (info.additional_recipients) body.additional_recipients = info.additional_recipients;
    if (info.amount) body.amount = info.amount;
    if (info.configuration || f.template) {
      body.configuration = { ...((info.configuration as Record<string, unknown> | undefined) ?? {}), ...(f.template ? { template_id: f.template } : {}) };
    }
    return body;
  }
}
