// Bulk refunds from a CSV file (capture_id, amount, currency, note): reading and checking the file,
// and refunding each row with a request id derived from the file, so a re-run replays, never repeats.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ApiClient } from './api/client.js';
import { UsageError, errorReportFor, type ErrorReport } from './api/errors.js';
import { getCapture, refundCapture, type RefundRequest } from './api/payments.js';
import { parseCsv } from './csv.js';
import { moneyFromFlags } from './flags.js';
import { formatMoney } from './render/format.js';

/** One row of a bulk refund file; `row` counts data rows from 1 and is part of its request id. */
export interface RefundRow {
  row: number;
  capture_id: string;
  amount: string;
  currency: string;
  note: string;
}

/** One result line of a bulk refund. */
export interface RefundOutcome {
  row: number;
  capture_id: string;
  status: string;
  refund_id?: string;
  amount?: string;
  error?: ErrorReport;
}

export interface RefundFile {
  file: string;
  rows: RefundRow[];
  /** First 32 hex digits of the file's SHA-256. */
  contentHash: string;
}

const MAX_ROWS = 10_000;
const COLUMNS = ['capture_id', 'amount', 'currency', 'note'] as const;
type Column = (typeof COLUMNS)[number];

export function readRefundFile(file: string): RefundFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
  }
  let records: string[][];
  try {
    // Rows whose cells are all blank are not rows (nor counted), as before.
    records = parseCsv(text).map((row) => row.cells).filter((cells) => cells.some((cell) => cell.trim() !== ''));
  } catch (error) {
    throw new UsageError(`${file}: ${(error as Error).message}`);
  }
  const [header, ...data] = records;
  const names = (header ?? []).map((name) => name.trim().toLowerCase());
  const index = Object.fromEntries(COLUMNS.map((column) => [column, names.indexOf(column)])) as Record<Column, number>;
  if (index.capture_id < 0) throw new UsageError(`${file}: the header must name the columns capture_id, amount, currency, note`);
  if (data.length > MAX_ROWS) throw new UsageError(`${file}: at most ${MAX_ROWS} rows per file`);
  if (data.length === 0) throw new UsageError(`${file} has no rows to refund`);
  const cell = (cells: string[], column: Column) => (index[column] < 0 ? '' : (cells[index[column]] ?? '').trim());
  const rows = data.map((cells, i) => ({
    row: i + 1,
    capture_id: cell(cells, 'capture_id'),
    amount: cell(cells, 'amount'),
    currency: cell(cells, 'currency').toUpperCase(),
    note: cell(cells, 'note'),
  }));
  return { file, rows, contentHash: createHash('sha256').update(text).digest('hex').slice(0, 32) };
}

async function refundRow(client: ApiClient, row: RefundRow, requestId: string): Promise<RefundOutcome> {
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

/**
 * Refunds every row in order, reporting each outcome as it comes; a failed row does not stop the
 * others. Returns the outcomes and the first failure (for the exit code).
 */
export async function refundFileRows(
  client: ApiClient,
  refundFile: RefundFile,
  onOutcome: (outcome: RefundOutcome) => void,
): Promise<{ outcomes: RefundOutcome[]; firstFailure: unknown }> {
  const outcomes: RefundOutcome[] = [];
  let firstFailure: unknown;
  for (const row of refundFile.rows) {
    const requestId = `refunds-${refundFile.contentHash}-${row.row}`;
    const outcome = await refundRow(client, row, requestId).catch((error: unknown): RefundOutcome => {
      firstFailure ??= error;
      return { row: row.row, capture_id: row.capture_id, status: 'FAILED', error: errorReportFor(error) };
    });
    outcomes.push(outcome);
    onOutcome(outcome);
  }
  return { outcomes, firstFailure };
}
