// Lists: a boxed table on a terminal, tab-separated values with a header row when piped.

import Table from 'cli-table3';
import { colorStatus, stdoutChalk } from './colors.js';

export interface Column<Row> {
  header: string;
  value: (row: Row) => string | undefined;
  /** Colour the cell as a status word (terminal only). */
  status?: boolean;
}

export interface RenderOptions {
  /** Defaults to whether stdout is a terminal. */
  tty?: boolean;
}

export function renderTable<Row>(rows: readonly Row[], columns: readonly Column<Row>[], options: RenderOptions = {}): string {
  const tty = options.tty ?? Boolean(process.stdout.isTTY);
  if (!tty) return renderTsv(rows, columns);
  const chalk = stdoutChalk();
  const table = new Table({
    head: columns.map((column) => chalk.bold(column.header)),
    style: { head: [], border: [] },
  });
  for (const row of rows) {
    table.push(
      columns.map((column) => {
        const text = column.value(row) ?? '';
        return column.status && text ? colorStatus(text, chalk) : text;
      }),
    );
  }
  return table.toString();
}

/** TSV: one header row, then one line per row; tabs and newlines inside cells become spaces. */
export function renderTsv<Row>(rows: readonly Row[], columns: readonly Column<Row>[]): string {
  const lines = [columns.map((column) => tsvCell(column.header))];
  for (const row of rows) lines.push(columns.map((column) => tsvCell(column.value(row) ?? '')));
  return lines.map((cells) => cells.join('\t')).join('\n');
}

function tsvCell(text: string): string {
  return text.replace(/[\t\r\n]+/g, ' ');
}
