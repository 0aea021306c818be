import { describe, expect, it } from 'vitest';
import { statusTone } from '../../src/lib/render/colors.js';
import { formatDate, formatErrorText, formatMoney, formatValue, renderDetail } from '../../src/lib/render/format.js';
import { fitWidths, renderTable } from '../../src/lib/render/table.js';

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

  it('is aligned columns on a terminal: a bold header, one line per row, no box drawing', () => {
    const text = renderTable(rows, columns, { tty: true, width: 160 });
    const lines = text.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[2]).toContain('CAP-2');
    expect(lines[2]).toContain('two cells line');
    expect(text).not.toMatch(/[┌─│┼└]/);
  });
});

describe('renderTable fitted to the terminal', () => {
  const stripAnsi = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '');
  const rows = Array.from({ length: 5 }, (_, i) => ({
    id: `WH-${String(i).padStart(17, '0')}`,
    url: `https://hooks.example.com/payments/${'segment/'.repeat(8)}${i}`,
    events: 'PAYMENT.CAPTURE.COMPLETED,PAYMENT.CAPTURE.REFUNDED,PAYMENT.CAPTURE.REVERSED,CUSTOMER.DISPUTE.CREATED',
    status: 'ACTIVE',
  }));
  const columns = [
    { header: 'ID', value: (row: (typeof rows)[number]) => row.id },
    { header: 'URL', value: (row: (typeof rows)[number]) => row.url },
    { header: 'Events', value: (row: (typeof rows)[number]) => row.events },
    { header: 'Status', value: (row: (typeof rows)[number]) => row.status, status: true },
  ];

  it.each([80, 160])('at %i columns: every line fits, ids whole, the widest columns end in an ellipsis', (width) => {
    const lines = stripAnsi(renderTable(rows, columns, { tty: true, width })).split('\n');
    expect(lines).toHaveLength(rows.length + 1);
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(width);
    rows.forEach((row, i) => {
      expect(lines[i + 1]?.startsWith(`${row.id}  `)).toBe(true);
      expect(lines[i + 1]).toContain('ACTIVE');
    });
    expect(lines[1]).toContain('…');
    expect(lines[1]).not.toContain(rows[0]?.events);
  });

  it('leaves a table that fits alone, and piped output whole', () => {
    const wide = stripAnsi(renderTable(rows, columns, { tty: true, width: 400 }));
    expect(wide).not.toContain('…');
    expect(wide).toContain(rows[0]?.url);
    const piped = renderTable(rows, columns, { tty: false });
    expect(piped.split('\n')[1]).toBe([rows[0]?.id, rows[0]?.url, rows[0]?.events, 'ACTIVE'].join('\t'));
  });

  it('fitWidths: narrow columns keep their width, wide ones share the rest, ids are never cut', () => {
    // 2 gaps of 2: 40 - 4 = 36 for the columns; the id keeps 20, "Status" 6, the URL gets 10.
    expect(fitWidths([20, 60, 6], [true, false, false], 40)).toEqual([20, 10, 6]);
    expect(fitWidths([20, 60, 50], [true, false, false], 50)).toEqual([20, 13, 13]);
    expect(fitWidths([5, 6], [false, false], 80)).toEqual([5, 6]);
    // Ids alone wider than the terminal: they stay whole and the others shrink to the minimum.
    expect(fitWidths([90, 30], [true, false], 80)).toEqual([90, 4]);
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
