// Reads a payouts file (CSV with a header row, or the API's JSON) into a create request, checking
// every row first: a file with any bad row is refused whole, with each problem named by its line.

import { createHash } from 'node:crypto';
import { parseCsv } from './csv.js';
import { MoneyParseError, canonicalDecimal, fromMinorUnits, isSupportedCurrency, toMinorUnits } from './money.js';
import type { CreatePayoutRequest, PayoutItemRequest } from './api/payouts.js';

export const MAX_PAYOUT_ITEMS = 15_000;
export const RECIPIENT_TYPES = ['EMAIL', 'PHONE', 'PAYPAL_ID', 'USER_HANDLE'] as const;
const WALLETS = ['PAYPAL', 'VENMO', 'RECIPIENT_SELECTED'];
const PURPOSES = ['AWARDS', 'PRIZES', 'DONATIONS', 'GOODS', 'SERVICES', 'REBATES', 'CASHBACK', 'DISCOUNTS', 'NON_GOODS_OR_SERVICES'];
const CSV_COLUMNS = ['receiver', 'amount', 'currency', 'note', 'sender_item_id', 'recipient_type', 'recipient_wallet', 'purpose'];
const REQUIRED_CSV_COLUMNS = ['receiver', 'amount', 'currency'];
/** Item fields the JSON form may carry; others are probably typos and are refused. */
const JSON_ITEM_FIELDS = new Set([
  'recipient_type',
  'amount',
  'receiver',
  'note',
  'sender_item_id',
  'recipient_wallet',
  'purpose',
  'notification_language',
  'alternate_notification_method',
  'application_context',
]);
const EMAIL_PATTERN = /^[^@\s]{1,64}@[^@\s]+\.[^@\s]+$/;
const PAYER_ID_PATTERN = /^[2-9A-HJ-NP-Z]{13}$/;

export class PayoutFileError extends Error {
  constructor(
    readonly file: string,
    readonly problems: readonly string[],
  ) {
    const shown = problems.slice(0, 200);
    const more = problems.length > shown.length ? `\n  ... and ${problems.length - shown.length} more` : '';
    super(`${file}: ${problems.length} problem${problems.length === 1 ? '' : 's'}, nothing was sent:\n${shown.map((p) => `  ${p}`).join('\n')}${more}`);
    this.name = 'PayoutFileError';
  }
}

export interface PayoutFile {
  request: CreatePayoutRequest;
  /** SHA-256 of the file's bytes: the default sender_batch_id is derived from it. */
  contentHash: string;
  /** Minor units per currency, for the confirmation. */
  totals: Map<string, bigint>;
}

export interface ParseOptions {
  /** The recipient type of rows that name none (CSV) or of the batch header (JSON without one). */
  recipientType: string;
}

/** `12.50 USD, 1000 JPY`. */
export function formatTotals(totals: Map<string, bigint>): string {
  return [...totals].map(([currency, minor]) => `${fromMinorUnits(minor, currency)} ${currency}`).join(', ');
}

/** The sender_batch_id used when none is given: the same file always gets the same one. */
export function defaultSenderBatchId(contentHash: string): string {
  return `payctl-${contentHash.slice(0, 40)}`;
}

interface RawItem {
  where: string;
  fields: Record<string, unknown>;
}

function text(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === 'string' ? value : undefined;
}

/** Checks one item; pushes its problems; returns the item as the API takes it when it is good. */
function checkItem(raw: RawItem, defaultType: string | undefined, problems: string[]): { item: PayoutItemRequest; minor: bigint } | undefined {
  const before = problems.length;
  const problem = (message: string) => problems.push(`${raw.where}: ${message}`);
  const f = raw.fields;
  const receiver = text(f.receiver)?.trim() ?? '';
  const type = (text(f.recipient_type)?.trim().toUpperCase() || defaultType) ?? '';
  const currency = text(f.currency)?.trim().toUpperCase() ?? '';
  const value = text(f.value)?.trim() ?? '';
  if (receiver === '') problem('receiver is missing');
  else if (receiver.length > 127) problem(`receiver is longer than 127 characters`);
  if (!(RECIPIENT_TYPES as readonly string[]).includes(type)) problem(`recipient_type "${type}" is not one of ${RECIPIENT_TYPES.join(', ')}`);
  else if (receiver !== '' && type === 'EMAIL' && !EMAIL_PATTERN.test(receiver)) problem(`receiver "${receiver}" is not an e-mail address`);
  else if (receiver !== '' && type === 'PAYPAL_ID' && !PAYER_ID_PATTERN.test(receiver)) problem(`receiver "${receiver}" is not a 13-character account id`);
  let minor = 0n;
  if (!/^[A-Z]{3}$/.test(currency)) problem(currency ? `currency "${currency}" is not a three-letter code` : 'currency is missing');
  else if (!isSupportedCurrency(currency)) problem(`currency ${currency} is not supported`);
  else if (value === '') problem('amount is missing');
  else {
    try {
      minor = toMinorUnits(value, currency);
      if (minor <= 0n) problem(`amount "${value}" must be greater than zero`);
    } catch (error) {
      if (!(error instanceof MoneyParseError)) throw error;
      problem(`amount ${error.message}`);
    }
  }
  const note = text(f.note);
  if (note !== undefined && (note.length > 4000 || (!/^[\x00-\x7f]*$/.test(note) && note.length > 1000))) {
    problem('note is longer than 4000 characters (1000 when not plain ASCII)');
  }
  const senderItemId = text(f.sender_item_id);
  if (senderItemId !== undefined && senderItemId.length > 63) problem('sender_item_id is longer than 63 characters');
  const wallet = text(f.recipient_wallet);
  if (wallet !== undefined && !WALLETS.includes(wallet)) problem(`recipient_wallet "${wallet}" is not one of ${WALLETS.join(', ')}`);
  const purpose = text(f.purpose);
  if (purpose !== undefined && !PURPOSES.includes(purpose)) problem(`purpose "${purpose}" is not one of ${PURPOSES.join(', ')}`);
  if (problems.length > before) return undefined;
  const item: PayoutItemRequest = { recipient_type: type, amount: { currency, value: canonicalDecimal(value) }, receiver };
  if (note !== undefined && note !== '') item.note = note;
  if (senderItemId !== undefined && senderItemId !== '') item.sender_item_id = senderItemId;
  if (wallet !== undefined) item.recipient_wallet = wallet;
  if (purpose !== undefined) item.purpose = purpose;
  for (const extra of ['notification_language', 'alternate_notification_method', 'application_context']) {
    if (f[extra] !== undefined) (item as unknown as Record<string, unknown>)[extra] = f[extra];
  }
  return { item, minor };
}

function csvItems(body: string, problems: string[]): RawItem[] {
  let rows: ReturnType<typeof parseCsv>;
  try {
    rows = parseCsv(body);
  } catch (error) {
    problems.push((error as Error).message);
    return [];
  }
  const [header, ...data] = rows;
  if (!header) {
    problems.push('the file is empty: expected a header row (receiver,amount,currency,...) and one row per payout');
    return [];
  }
  const columns = header.cells.map((cell) => cell.trim().toLowerCase());
  for (const column of columns) {
    if (!CSV_COLUMNS.includes(column)) problems.push(`line ${header.line}: unknown column "${column}" (columns: ${CSV_COLUMNS.join(', ')})`);
  }
  for (const column of new Set(columns.filter((name, i) => columns.indexOf(name) !== i))) problems.push(`line ${header.line}: column "${column}" appears twice`);
  for (const column of REQUIRED_CSV_COLUMNS) {
    if (!columns.includes(column)) problems.push(`line ${header.line}: the header has no "${column}" column`);
  }
  if (problems.length > 0) return [];
  return data.map((row) => {
    if (row.cells.length !== columns.length) {
      problems.push(`line ${row.line}: ${row.cells.length} fields, the header has ${columns.length}`);
    }
    const fields: Record<string, unknown> = {};
    columns.forEach((column, i) => {
      const cell = row.cells[i];
      if (cell !== undefined && cell.trim() !== '') fields[column === 'amount' ? 'value' : column] = column === 'note' ? cell : cell.trim();
    });
    return { where: `line ${row.line}`, fields };
  });
}

const HEADER_LIMITS: ReadonlyArray<[string, number]> = [
  ['sender_batch_id', 256],
  ['email_subject', 255],
  ['email_message', 1000],
  ['note', 1000],
];

function checkHeader(header: Record<string, unknown>, problems: string[]): void {
  for (const [name, max] of HEADER_LIMITS) {
    const value = header[name];
    if (value === undefined) continue;
    if (typeof value !== 'string') problems.push(`sender_batch_header.${name}: expected a string`);
    else if (value.length > max) problems.push(`sender_batch_header.${name} is longer than ${max} characters`);
  }
  const type = header.recipient_type;
  if (type !== undefined && !['EMAIL', 'PHONE', 'PAYPAL_ID'].includes(String(type))) {
    problems.push(`sender_batch_header.recipient_type "${String(type)}" is not one of EMAIL, PHONE, PAYPAL_ID`);
  }
}

interface JsonBatch {
  header: CreatePayoutRequest['sender_batch_header'];
  items: RawItem[];
}

function jsonItems(body: string, problems: string[]): JsonBatch {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (error) {
    problems.push(`not valid JSON: ${(error as Error).message}`);
    return { header: {}, items: [] };
  }
  const root = Array.isArray(parsed) ? { items: parsed } : parsed;
  if (typeof root !== 'object' || root === null || !Array.isArray((root as { items?: unknown }).items)) {
    problems.push('expected {"sender_batch_header": {...}, "items": [...]} or an array of items');
    return { header: {}, items: [] };
  }
  const { items, sender_batch_header: header } = root as { items: unknown[]; sender_batch_header?: unknown };
  const batchHeader = (typeof header === 'object' && header !== null ? header : {}) as CreatePayoutRequest['sender_batch_header'];
  return {
    header: batchHeader,
    items: items.map((entry, index) => {
      const where = `items[${index}]`;
      if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
        problems.push(`${where}: expected an object`);
        return { where, fields: {} };
      }
      const fields = { ...(entry as Record<string, unknown>) };
      for (const key of Object.keys(fields)) if (!JSON_ITEM_FIELDS.has(key)) problems.push(`${where}: unknown field "${key}"`);
      const amount = fields.amount;
      if (typeof amount === 'object' && amount !== null) {
        fields.currency = (amount as Record<string, unknown>).currency;
        fields.value = (amount as Record<string, unknown>).value;
      } else if (amount !== undefined) problems.push(`${where}: amount must be {"currency": "USD", "value": "1.00"}`);
      return { where, fields };
    }),
  };
}

/** Parses and checks the whole file; throws PayoutFileError listing every problem. */
export function parsePayoutFile(file: string, content: Buffer, options: ParseOptions): PayoutFile {
  const body = content.toString('utf8').replace(/^\uFEFF/, '');
  const problems: string[] = [];
  const isJson = /\.json$/i.test(file) || (!/\.(csv|txt)$/i.test(file) && /^\s*[[{]/.test(body));
  const batch: JsonBatch = isJson ? jsonItems(body, problems) : { header: {}, items: csvItems(body, problems) };
  checkHeader(batch.header, problems);
  const defaultType = text(batch.header.recipient_type) ?? options.recipientType;
  if (problems.length === 0 && batch.items.length === 0) problems.push('the file holds no payouts');
  if (batch.items.length > MAX_PAYOUT_ITEMS) problems.push(`${batch.items.length} payouts: a batch holds at most ${MAX_PAYOUT_ITEMS}`);
  const items: PayoutItemRequest[] = [];
  const totals = new Map<string, bigint>();
  for (const raw of batch.items) {
    const checked = checkItem(raw, defaultType, problems);
    if (!checked) continue;
    items.push(checked.item);
    const currency = checked.item.amount.currency;
    totals.set(currency, (totals.get(currency) ?? 0n) + checked.minor);
  }
  if (problems.length > 0) throw new PayoutFileError(file, problems);
  return {
    request: { sender_batch_header: { ...batch.header }, items },
    contentHash: createHash('sha256').update(content).digest('hex'),
    totals,
  };
}
