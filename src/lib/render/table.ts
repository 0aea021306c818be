// Lists: on a terminal, aligned columns without box drawing, one line per row, fitted to the
// terminal's width (the widest columns shortened with an ellipsis, ids never), as gh prints them;
// when piped, tab-separated values with a header row, every cell whole.

import { colorStatus, stdoutChalk } from './colors.js';

export interface Column<Row> {
  header: string;
  value: (row: Row) => string | undefined;
  /** Colour the cell as a status word (terminal only). */
  status?: boolean;
  /** Never shortened, so it can be copied. Columns headed "ID" or "... id" are ids without saying so. */
  id?: boolean;
  /** Terminal-only styling of the cell's text once fitted (e.g. a date in red). */
  style?: (text: string, row: Row) => string;
}

export interface RenderOptions {
  /** Defaults to whether stdout is a terminal. */
  tty?: boolean;
  /** Columns available; defaults to the terminal's width, then $COLUMNS, then 80. */
  width?: number;
}

/** Spaces between two columns. */
const GAP = 2;
/** A shortened column keeps at least this many characters, ellipsis included. */
const MIN_WIDTH = 4;
const ELLIPSIS = '…';

export function renderTable<Row>(rows: readonly Row[], columns: readonly Column<Row>[], options: RenderOptions = {}): string {
  const tty = options.tty ?? Boolean(process.stdout.isTTY);
  if (!tty) return renderTsv(rows, columns);
  const chalk = stdoutChalk();
  const cells = rows.map((row) => columns.map((column) => oneLine(column.value(row) ?? '')));
  const natural = columns.map((column, i) => Math.max(length(column.header), ...cells.map((line) => length(line[i] ?? ''))));
  const widths = fitWidths(natural, columns.map(isIdColumn), terminalWidth(options.width));
  const last = columns.length - 1;
  const line = (texts: readonly string[], paint: (text: string, i: number) => string) =>
    texts
      .map((text, i) => {
        const fitted = truncate(text, widths[i] ?? 0);
        // The last column is not padded: no trailing spaces.
        const padding = i === last ? '' : ' '.repeat((widths[i] ?? 0) - length(fitted));
        return paint(fitted, i) + padding;
      })
      .join(' '.repeat(GAP));
  const lines = [line(columns.map((column) => column.header), (text) => chalk.bold(text))];
  cells.forEach((texts, r) => {
    const row = rows[r] as Row;
    lines.push(
      line(texts, (text, i) => {
        const column = columns[i] as Column<Row>;
        if (!text) return text;
        if (column.style) return column.style(text, row);
        return column.status ? colorStatus(text, chalk) : text;
      }),
    );
  });
  return lines.join('\n');
}

/**
 * Column widths that fit `width`: unchanged when the table fits. Otherwise ids keep their width, and
 * the rest share what is left: a column narrower than an even share keeps its width, the wider
 * ones split the remainder evenly (never below MIN_WIDTH, so very narrow terminals still overflow).
 */
export function fitWidths(natural: readonly number[], fixed: readonly boolean[], width: number): number[] {
  const gaps = GAP * Math.max(0, natural.length - 1);
  const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);
  if (sum(natural) + gaps <= width) return [...natural];
  let budget = width - gaps - sum(natural.filter((_, i) => fixed[i]));
  let flexible = natural.map((_, i) => i).filter((i) => !fixed[i]);
  for (;;) {
    const share = Math.floor(budget / Math.max(1, flexible.length));
    const narrow = flexible.filter((i) => (natural[i] ?? 0) <= share);
    if (narrow.length === 0 || narrow.length === flexible.length) break;
    budget -= sum(narrow.map((i) => natural[i] ?? 0));
    flexible = flexible.filter((i) => (natural[i] ?? 0) > share);
  }
  const widths = [...natural];
  const share = Math.floor(budget / Math.max(1, flexible.length));
  let extra = budget - share * flexible.length;
  for (const i of flexible) {
    const give = share + (extra > 0 ? 1 : 0);
    extra -= 1;
    widths[i] = Math.min(natural[i] ?? 0, Math.max(MIN_WIDTH, give));
  }
  return widths;
}

function isIdColumn<Row>(column: Column<Row>): boolean {
  return column.id ?? /(^|\s)id$/i.test(column.header.trim());
}

function terminalWidth(width: number | undefined): number {
  if (width !== undefined) return width;
  if (process.stdout.isTTY && process.stdout.columns > 0) return process.stdout.columns;
  const fromEnv = Number.parseInt(process.env.COLUMNS ?? '', 10);
  return Number.isFinite(fromEnv) && fromEnv > 0 ? fromEnv : 80;
}

/** Characters as the terminal counts them (code points; payctl prints no wide characters of its own). */
function length(text: string): number {
  return [...text].length;
}

function truncate(text: string, width: number): string {
  const chars = [...text];
  if (chars.length <= width) return text;
  return width <= 1 ? ELLIPSIS.slice(0, width) : chars.slice(0, width - 1).join('') + ELLIPSIS;
}

function oneLine(text: string): string {
  return text.replace(/[\t\r\n]+/g, ' ');
}

/** TSV: one header row, then one line per row; tabs and newlines inside cells become spaces. */
export function renderTsv<Row>(rows: readonly Row[], columns: readonly Column<Row>[]): string {
  const lines = [columns.map((column) => oneLine(column.header))];
  for (const row of rows) lines.push(columns.map((column) => oneLine(column.value(row) ?? '')));
  return lines.map((cells) => cells.join('\t')).join('\n');
}
