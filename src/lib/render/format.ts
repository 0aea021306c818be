// Text for single values and single resources: money, dates, key/value detail views, errors.

import type { ErrorReport } from '../api/errors.js';
import type { Money } from '../money.js';
import { colorStatus, stdoutChalk } from './colors.js';
import type { RenderOptions } from './table.js';

export function isMoney(value: unknown): value is Money {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Money).currency_code === 'string' &&
    typeof (value as Money).value === 'string'
  );
}

/** `{ value: "12.34", currency_code: "USD" }` -> `12.34 USD`; the string is shown as sent. */
export function formatMoney(amount: Money | undefined | null): string {
  return amount ? `${amount.value} ${amount.currency_code}` : '';
}

/** RFC 3339 instants shown as `2025-01-31 09:30:00Z`; anything unparseable is shown as it came. */
export function formatDate(value: string | undefined | null): string {
  if (!value) return '';
  const time = Date.parse(value);
  if (!Number.isFinite(time)) return value;
  return new Date(time).toISOString().replace('T', ' ').replace(/\.\d{3}Z$/, 'Z');
}

/** A cell for any field value. */
export function formatValue(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (isMoney(value)) return formatMoney(value);
  return JSON.stringify(value);
}

export type DetailRow = readonly [label: string, value: string | undefined | null, kind?: 'status'];

/** Key/value view of one resource: aligned on a terminal, `label<TAB>value` lines when piped. */
export function renderDetail(rows: readonly DetailRow[], options: RenderOptions = {}): string {
  const tty = options.tty ?? Boolean(process.stdout.isTTY);
  if (!tty) return rows.map(([label, value]) => `${label}\t${(value ?? '').replace(/[\t\r\n]+/g, ' ')}`).join('\n');
  const chalk = stdoutChalk();
  const width = Math.max(0, ...rows.map(([label]) => label.length));
  return rows
    .map(([label, value, kind]) => {
      const text = value ?? '';
      const shown = kind === 'status' && text ? colorStatus(text, chalk) : text;
      return `${chalk.bold(label.padEnd(width))}  ${shown || chalk.dim('-')}`;
    })
    .join('\n');
}

/** The readable form of an error for stderr. */
export function formatErrorText(report: ErrorReport, options: { retryHint?: boolean } = {}): string {
  const lines = [`Error: ${report.name}: ${report.message}`];
  for (const detail of report.details ?? []) {
    const where = [detail.field, detail.location ? `(${detail.location})` : undefined].filter(Boolean).join(' ');
    const what = [detail.issue, detail.description].filter(Boolean).join(': ');
    const value = detail.value === undefined ? '' : ` [value: ${formatValue(detail.value)}]`;
    lines.push(`  - ${where ? `${where}: ` : ''}${what}${value}`);
  }
  if (report.debug_id) lines.push(`Debug id: ${report.debug_id}`);
  if (report.request_id) {
    lines.push(
      options.retryHint
        ? `Request id: ${report.request_id} (retry with --request-id ${report.request_id}; the service will not apply it twice)`
        : `Request id: ${report.request_id}`,
    );
  }
  return lines.join('\n');
}
