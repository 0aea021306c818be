import { describe, expect, it } from 'vitest';
import { statusTone } from '../../src/lib/render/colors.js';
import { formatDate, formatErrorText, formatMoney, formatValue, renderDetail } from '../../src/lib/render/format.js';
import { renderTable } from '../../src/lib/render/table.js';

const ANSI = /\u001b\[/;

describe('statusTone', () => {
  const cases: Array<[string, string | undefined]> = [
    ['COMPLETED', 'green'], ['CAPTURED', 'green'], ['PAID', 'green'], ['SUCCESS', 'green'], ['ACTIVE', 'green'],
    ['PENDING', 'yellow'], ['CREATED', 'yellow'], ['SENT', 'yellow'], ['UNPAID', 'yellow'], ['PROCESSING', 'yellow'],
    ['SCHEDULED', 'yellow'], ['DRAFT', 'yellow'], ['OPEN', 'yellow'],
    ['PARTIALLY_REFUNDED', 'cyan'], ['PARTIALLY_CAPTURED', 'cyan'], ['PARTIALLY_PAID', 'cyan'],
    ['DENIED', 'red'], ['FAILED', 'red'], ['DECLINED', 'red'], ['VOIDED', 'red'], ['CANCELLED', 'red'],
    ['REFUNDED', 'red'], ['RETURNED', 'red'], ['BLOCKED', 'red'], ['EXPIRED', 'red'],
    ['completed', 'green'], ['SOMETHING_ELSE', undefined],
  ];
  it.each(cases)('%s -> %s', (status, tone) => expect(statusTone(status)).toBe(tone));
});

describe('renderTable when piped', () => {
  const rows = [
    { id: 'CAP-1', status: 'COMPLETED', amount: { value: '12.34', currency_code: 'USD' } },
    { id: 'CAP-2', status: 'PARTIALLY_REFUNDED', amount: { value: '1500', currency_code: 'JPY' }, note: 'two\tcells\nline' },
  ];
  const columns = [
    { header: 'ID', value: (row: (typeof rows)[number]) => row.id },
    { header: 'STATUS', value: (row: (typeof rows)[number]) => row.status, status: true },
    { header: 'AMOUNT', value: (row: (typeof rows)[number]) => formatMoney(row.amount) },
    { header: 'NOTE', value: (row: (typeof rows)[number]) => row.note },
  ];

  it('is TSV with a header row, no colour and no tabs or newlines inside cells', () => {
    const text = renderTable(rows, columns, { tty: false });
    expect(text.split('\n')).toEqual([
      'ID\tSTATUS\tAMOUNT\tNOTE',
      'CAP-1\tCOMPLETED\t12.34 USD\t',
      'CAP-2\tPARTIALLY_REFUNDED\t1500 JPY\ttwo cells line',
    ]);
    expect(text).not.toMatch(ANSI);
  });

  it('is a boxed table on a terminal', () => {
    const text = renderTable(rows, columns, { tty: true });
    expect(text).toContain('CAP-2');
    expect(text).toMatch(/[┌─│]/);
  });
});

describe('format', () => {
  it('formats money as "value CURRENCY", keeping the string exactly', () => {
    expect(formatMoney({ value: '999999999999999.99', currency_code: 'USD' })).toBe('999999999999999.99 USD');
    expect(formatMoney(undefined)).toBe('');
    expect(formatValue({ value: '0.50', currency_code: 'EUR' })).toBe('0.50 EUR');
    expect(formatValue(null)).toBe('');
    expect(formatValue({ a: 1 })).toBe('{"a":1}');
  });

  it('formats instants in UTC and leaves anything else as it came', () => {
    expect(formatDate('2025-03-01T10:20:30.456+02:00')).toBe('2025-03-01 08:20:30Z');
    expect(formatDate('not a date')).toBe('not a date');
    expect(formatDate(undefined)).toBe('');
  });

  it('renders a detail view as label<TAB>value lines when piped', () => {
    expect(renderDetail([['Id', 'X1'], ['Status', 'COMPLETED', 'status'], ['Note', undefined]], { tty: false })).toBe(
      'Id\tX1\nStatus\tCOMPLETED\nNote\t',
    );
  });

  it('renders an error with its details and the request id to retry with', () => {
    const text = formatErrorText(
      {
        name: 'UNPROCESSABLE_ENTITY',
        message: 'refused',
        debug_id: 'dbg1',
        details: [{ field: '/amount/value', location: 'body', issue: 'AMOUNT_TOO_HIGH', description: 'too much', value: '5.00' }],
        request_id: 'req-9',
      },
      { retryHint: true },
    );
    expect(text.split('\n')).toEqual([
      'Error: UNPROCESSABLE_ENTITY: refused',
      '  - /amount/value (body): AMOUNT_TOO_HIGH: too much [value: 5.00]',
      'Debug id: dbg1',
      'Request id: req-9 (retry with --request-id req-9; the service will not apply it twice)',
    ]);
  });
});
