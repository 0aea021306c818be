import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Args, Flags } from '@oclif/core';
import { captureView } from '../../lib/api/orders.js';
import { UsageError, errorReportFor, exitCodeFor, type ErrorReport } from '../../lib/api/errors.js';
import { getCapture, refundCapture, type Refund, type RefundRequest } from '../../lib/api/payments.js';
import type { ApiClient } from '../../lib/api/client.js';
import { BaseCommand } from '../../lib/base-command.js';
import { amountFlag, currencyFlag, moneyFromFlags, requestIdFlag, yesFlag } from '../../lib/flags.js';
import { formatDate, formatMoney } from '../../lib/render/format.js';

/** One row of a bulk refund file. */
interface RefundRow {
  row: number;
  capture_id: string;
  amount: string;
  currency: string;
  note: string;
}

/** One result line of a bulk refund. */
interface RefundOutcome {
  row: number;
  capture_id: string;
  status: string;
  refund_id?: string;
  amount?: string;
  error?: ErrorReport;
}

const MAX_ROWS = 10_000;
const COLUMNS = ['capture_id', 'amount', 'currency', 'note'] as const;

/** RFC 4180 CSV: quoted fields may hold commas, quotes ("") and line breaks. */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  const source = text.replace(/^\uFEFF/, '');
  for (let i = 0; i < source.length; i += 1) {
    const char = source[i];
    if (quoted) {
      if (char === '"' && source[i + 1] === '"') {
        field += '"';
        i += 1;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"' && field === '') quoted = true;
    else if (char === ',') {
      record.push(field);
      field = '';
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && source[i + 1] === '\n') i += 1;
      record.push(field);
      records.push(record);
      record = [];
      field = '';
    } else field += char;
  }
  if (quoted) throw new UsageError('the file ends inside a quoted field');
  if (field !== '' || record.length > 0) records.push([...record, field]);
  return records.filter((cells) => cells.some((cell) => cell.trim() !== ''));
}

function rowsOf(text: string, file: string): RefundRow[] {
  const [header, ...records] = parseCsv(text);
  const names = (header ?? []).map((name) => name.trim().toLowerCase());
  const index = Object.fromEntries(COLUMNS.map((column) => [column, names.indexOf(column)])) as Record<(typeof COLUMNS)[number], number>;
  if (index.capture_id < 0) throw new UsageError(`${file}: the header must name the columns capture_id, amount, currency, note`);
  if (records.length > MAX_ROWS) throw new UsageError(`${file}: at most ${MAX_ROWS} rows per file`);
  const cell = (cells: string[], column: (typeof COLUMNS)[number]) => (index[column] < 0 ? '' : (cells[index[column]] ?? '').trim());
  return records.map((cells, i) => ({
    row: i + 1,
    capture_id: cell(cells, 'capture_id'),
    amount: cell(cells, 'amount'),
    currency: cell(cells, 'currency').toUpperCase(),
    note: cell(cells, 'note'),
  }));
}

export default class PaymentsRefund extends BaseCommand<typeof PaymentsRefund> {
  static override summary = 'Refund a captured payment, fully or partly, or many from a CSV file';

  static override description = `Without --amount, refunds what is left of the capture. On a terminal, shows what is refundable and asks for confirmation unless --yes.

With --from-file, refunds every row of a CSV file with the columns capture_id, amount, currency, note (an empty amount refunds the rest; an empty currency means the capture's). Each row is sent with a request id derived from the file's content and the row number, so running the same file again replays the refunds already made instead of refunding twice; change nothing in a file between runs (put corrections in a new file). Prints one result line per row (NDJSON with --json) and exits non-zero if any row failed.`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> 3C679366HH908993F --yes',
    '<%= config.bin %> <%= command.id %> 3C679366HH908993F --amount 10.00 --note "Damaged item" --invoice-id RF-1001 --yes --json',
    '<%= config.bin %> <%= command.id %> --from-file refunds.csv --yes',
  ];

  static override args = {
    capture: Args.string({ description: 'Capture id (or use --from-file)', required: false }),
  };

  static override flags = {
    amount: amountFlag({ exclusive: ['from-file'] }),
    currency: currencyFlag({ dependsOn: ['amount'] }),
    note: Flags.string({ description: 'Reason shown to the payer (1-255 characters)', exclusive: ['from-file'] }),
    'invoice-id': Flags.string({ description: 'Your invoice number for the refund (1-127 characters)', exclusive: ['from-file'] }),
    'custom-id': Flags.string({ description: 'Your reference for the refund (1-127 characters)', exclusive: ['from-file'] }),
    'from-file': Flags.string({ description: 'CSV file of refunds: capture_id,amount,currency,note', exclusive: ['request-id'] }),
    'request-id': requestIdFlag(),
    yes: yesFlag(),
  };

  async run(): Promise<Refund | undefined> {
    const file = this.flags['from-file'];
    if (file && this.args.capture) throw new UsageError('give either a CAPTURE_ID or --from-file, not both');
    if (file) return this.refundFile(file);
    if (!this.args.capture) throw new UsageError('missing CAPTURE_ID (or --from-file FILE)');
    return this.refundOne(this.args.capture);
  }

  private async refundOne(captureId: string): Promise<Refund> {
    const client = this.client();
    const { flags } = this;
    const view = await captureView(client, captureId);
    const currency = flags.currency ?? view.capture.amount?.currency_code ?? 'USD';
    const body: RefundRequest = {};
    if (flags.amount) body.amount = moneyFromFlags(flags.amount, currency);
    if (flags.note) body.note_to_payer = flags.note;
    if (flags['invoice-id']) body.invoice_id = flags['invoice-id'];
    if (flags['custom-id']) body.custom_id = flags['custom-id'];
    const what = body.amount ? formatMoney(body.amount) : `the rest (${formatMoney(view.refundable)})`;
    await this.confirm(
      `Refund ${what} of capture ${captureId}? Refundable: ${formatMoney(view.refundable)} of ${formatMoney(view.capture.amount)}`,
    );
    const refund = await refundCapture(client, captureId, body, flags['request-id'] ? { requestId: flags['request-id'] } : {});
    const breakdown = refund.seller_payable_breakdown;
    this.renderDetail([
      ['Refund', refund.id],
      ['Status', refund.status, 'status'],
      ['Amount', formatMoney(refund.amount)],
      ['Fee returned', formatMoney(breakdown?.paypal_fee)],
      ['Net', formatMoney(breakdown?.net_amount)],
      ['Total refunded', formatMoney(breakdown?.total_refunded_amount)],
      ['Capture', captureId],
      ['Created', formatDate(refund.create_time)],
    ]);
    return refund;
  }

  private async refundFile(file: string): Promise<undefined> {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
    }
    const rows = rowsOf(text, file);
    if (rows.length === 0) throw new UsageError(`${file} has no rows to refund`);
    await this.confirm(`Refund the ${rows.length} row(s) of ${file}?`);
    const client = this.client();
    const fileHash = createHash('sha256').update(text).digest('hex').slice(0, 32);
    const outcomes: RefundOutcome[] = [];
    let failure: unknown;
    for (const row of rows) {
      const outcome = await this.refundRow(client, row, `refunds-${fileHash}-${row.row}`).catch((error: unknown) => {
        failure ??= error;
        return { row: row.row, capture_id: row.capture_id, status: 'FAILED', error: errorReportFor(error) } satisfies RefundOutcome;
      });
      outcomes.push(outcome);
      if (this.jsonEnabled()) process.stdout.write(`${JSON.stringify(outcome)}\n`);
    }
    this.renderTable(outcomes, [
      { header: 'Row', value: (outcome) => String(outcome.row) },
      { header: 'Capture', value: (outcome) => outcome.capture_id },
      { header: 'Status', value: (outcome) => outcome.status, status: true },
      { header: 'Refund', value: (outcome) => outcome.refund_id },
      { header: 'Amount', value: (outcome) => outcome.amount },
      { header: 'Error', value: (outcome) => (outcome.error ? errorText(outcome.error) : undefined) },
    ]);
    const failed = outcomes.filter((outcome) => outcome.error).length;
    if (failure !== undefined) {
      this.notice(`${failed} of ${outcomes.length} refund(s) failed; fix them in a new file (re-running this file replays the others).`);
      return this.exit(exitCodeFor(failure));
    }
    return undefined;
  }

  private async refundRow(client: ApiClient, row: RefundRow, requestId: string): Promise<RefundOutcome> {
    if (!row.capture_id) throw new UsageError(`row ${row.row}: capture_id is empty`);
    const body: RefundRequest = {};
    if (row.amount) {
      const currency = row.currency || (await getCapture(client, row.capture_id)).amount?.currency_code || 'USD';
      body.amount = moneyFromFlags(row.amount, currency);
    }
    if (row.note) body.note_to_payer = row.note;
    const refund = await refundCapture(client, row.capture_id, body, { requestId });
    return { row: row.row, capture_id: row.capture_id, status: refund.status, refund_id: refund.id, amount: formatMoney(refund.amount) };
  }
}

function errorText(report: ErrorReport): string {
  const issue = report.details?.[0]?.issue;
  return issue ? `${report.name}: ${issue}` : `${report.name}: ${report.message}`;
}
