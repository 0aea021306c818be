// The pieces of `payctl transactions search` that need no server: dates, the 31-day windows, amount
// ranges, the client-side filters, CSV quoting, and which transactions count as captures.

import { describe, expect, it } from 'vitest';
import { parseCsv } from '../../src/lib/csv.js';
import { CaptureLookupError, isCapture } from '../../src/lib/find-capture.js';
import {
  amountRange,
  asOfTime,
  csvHeader,
  csvRecord,
  csvRow,
  isoSecond,
  matchesLocalFilters,
  parseDateBound,
  parseRange,
  splitRange,
  windowDates,
} from '../../src/lib/reporting.js';

const DAY = 86_400_000;
const at = (text: string) => Date.parse(text);

describe('dates', () => {
  it('a day is included whole at either end; a date-time includes its second', () => {
    expect(parseDateBound('2026-11-01', 'from', '--from')).toBe(at('2026-11-01T00:00:00Z'));
    expect(parseDateBound('2026-11-30', 'to', '--to')).toBe(at('2026-12-01T00:00:00Z'));
    expect(parseDateBound('2026-11-07T12:00:00Z', 'to', '--to')).toBe(at('2026-11-07T12:00:01Z'));
    expect(parseDateBound('2026-11-07T12:00:00.750+02:00', 'from', '--from')).toBe(at('2026-11-07T10:00:00Z'));
  });

  it.each(['2026-02-30', '2026-13-01', '26-11-01', '2026-11-01T10:00Z', '2026-11-01 10:00:00Z', 'yesterday'])('refuses %s (exit 2)', (text) => {
    expect(() => parseDateBound(text, 'from', '--from')).toThrow(expect.objectContaining({ exitCode: 2 }));
  });

  it('refuses a range that ends before it starts, and takes a one-day range', () => {
    expect(() => parseRange('2026-11-02', '2026-11-01')).toThrow(/before --from/);
    expect(parseRange('2026-11-01', '2026-11-01')).toEqual({ fromMs: at('2026-11-01T00:00:00Z'), toMs: at('2026-11-02T00:00:00Z') });
  });
});

describe('31-day windows', () => {
  it('November is one request, from its first instant to the first one after it (the API excludes end_date)', () => {
    const windows = splitRange(parseRange('2026-11-01', '2026-11-30'));
    expect(windows.map(windowDates)).toEqual([{ start_date: '2026-11-01T00:00:00Z', end_date: '2026-12-01T00:00:00Z' }]);
  });

  it('exactly 31 days is one request; 32 days are two, meeting without overlap or gap', () => {
    expect(splitRange(parseRange('2026-01-01', '2026-01-31'))).toHaveLength(1);
    const two = splitRange(parseRange('2026-01-01', '2026-02-01')).map(windowDates);
    expect(two).toEqual([
      { start_date: '2026-01-01T00:00:00Z', end_date: '2026-02-01T00:00:00Z' },
      { start_date: '2026-02-01T00:00:00Z', end_date: '2026-02-02T00:00:00Z' },
    ]);
  });

  it('a year is twelve windows covering every second once, none longer than 31 days', () => {
    const range = parseRange('2026-01-01', '2026-12-31');
    const windows = splitRange(range);
    expect(windows).toHaveLength(Math.ceil(365 / 31));
    expect(windows[0]?.fromMs).toBe(range.fromMs);
    expect(windows.at(-1)?.toMs).toBe(range.toMs);
    for (const [i, window] of windows.entries()) {
      expect(window.toMs - window.fromMs).toBeLessThanOrEqual(31 * DAY);
      if (i > 0) expect(window.fromMs).toBe(windows[i - 1]?.toMs);
      const dates = windowDates(window);
      expect(Date.parse(dates.end_date) - Date.parse(dates.start_date)).toBeLessThanOrEqual(31 * DAY);
    }
    expect(isoSecond(at('2026-03-04T05:06:07.890Z'))).toBe('2026-03-04T05:06:07Z');
  });
});

describe('amount ranges', () => {
  it.each([
    ['10.00..20.00', undefined, '1000 TO 2000'],
    ['15', undefined, '1500 TO 1500'],
    ['1000..5000', 'JPY', '1000 TO 5000'],
    ['-20.00..-10.00', 'USD', '-2000 TO -1000'],
    ['0.5..1.250', 'BHD', '500 TO 1250'],
  ])('%s in %s is %s', (text, currency, expected) => {
    expect(amountRange(text, currency)).toBe(expected);
  });

  it.each(['10..', '..20', '20..10', '1.001..2', '10..20..30', 'ten'])('refuses %s (exit 2)', (text) => {
    expect(() => amountRange(text, 'USD')).toThrow(expect.objectContaining({ exitCode: 2 }));
  });
});

describe('filters and CSV', () => {
  const detail = (info: Record<string, unknown>) => ({ transaction_info: info });

  it('--invoice-id and --custom-id match exactly, together', () => {
    const tx = detail({ invoice_id: 'INV-1001', custom_field: 'order-7' });
    expect(matchesLocalFilters(tx, {})).toBe(true);
    expect(matchesLocalFilters(tx, { invoiceId: 'INV-1001' })).toBe(true);
    expect(matchesLocalFilters(tx, { invoiceId: 'INV-100' })).toBe(false);
    expect(matchesLocalFilters(tx, { invoiceId: 'INV-1001', customId: 'order-8' })).toBe(false);
    expect(matchesLocalFilters(detail({}), { customId: 'order-7' })).toBe(false);
  });

  it('quotes what needs it (RFC 4180) and reads back the same cells', () => {
    expect(csvRecord(['a', 'b,c', 'say "hi"', 'two\nlines', ''])).toBe('a,"b,c","say ""hi""","two\nlines",\r\n');
    const row = csvRow(
      detail({
        transaction_id: '1AB',
        transaction_event_code: 'T0006',
        transaction_amount: { currency_code: 'USD', value: '-10.00' },
        invoice_id: 'INV, "the first"',
      }),
    );
    const [header, record] = parseCsv(csvHeader() + row);
    const cells = Object.fromEntries((header?.cells ?? []).map((name, i) => [name, record?.cells[i]]));
    expect(cells).toMatchObject({ transaction_id: '1AB', event_code: 'T0006', currency: 'USD', amount: '-10.00', invoice_id: 'INV, "the first"', fee: '' });
  });
});

describe('finding a capture by invoice id', () => {
  it('a capture is a positive T00xx; payouts, refunds and reversals are not', () => {
    const money = (value: string) => ({ currency_code: 'USD', value });
    expect(isCapture({ transaction_event_code: 'T0006', transaction_amount: money('10.00') })).toBe(true);
    expect(isCapture({ transaction_event_code: 'T0000', transaction_amount: money('-10.00') })).toBe(false);
    expect(isCapture({ transaction_event_code: 'T1107', transaction_amount: money('-10.00') })).toBe(false);
    expect(isCapture({ transaction_event_code: 'T1201', transaction_amount: money('10.00') })).toBe(false);
  });

  it('none is exit 3; several is exit 2 listing each in the details', () => {
    const none = new CaptureLookupError('INV-9', [], 180);
    expect([none.exitCode, none.report().name]).toEqual([3, 'RESOURCE_NOT_FOUND']);
    expect(none.message).toContain('180 days');
    const two = new CaptureLookupError(
      'INV-9',
      [
        { transaction_id: 'CAP1', transaction_amount: { currency_code: 'USD', value: '5.00' } },
        { transaction_id: 'CAP2', transaction_amount: { currency_code: 'USD', value: '7.00' } },
      ],
      180,
    );
    expect(two.exitCode).toBe(2);
    expect(two.report().details?.map((d) => d.description)).toEqual([expect.stringContaining('CAP1'), expect.stringContaining('CAP2')]);
    expect(two.message).toMatch(/CAP1.*CAP2/);
  });
});

describe('balances --as-of', () => {
  it('a day is its last millisecond (the closing balance); an instant is itself, in UTC', () => {
    expect(asOfTime('2026-10-31')).toBe('2026-10-31T23:59:59.999Z');
    expect(asOfTime('2026-11-15T14:00:00+02:00')).toBe('2026-11-15T12:00:00.000Z');
    expect(() => asOfTime('2026-10-32')).toThrow(expect.objectContaining({ exitCode: 2 }));
  });
});
