// `payctl transactions search`, `payctl balances` and `payctl payments refund --invoice-id`: the built
// binary against the real server, through pipes and a pseudo-terminal, with a counting proxy in
// between where the number of requests is the point (the 31-day split, paging).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCsv } from '../../src/lib/csv.js';
import { okJson, runCli, useCliServer } from './cli-harness.js';
import { countingProxy, type CountingProxy } from './counting-proxy.js';
import { runInPty } from './pty.js';

const s = useCliServer(
  ['transactions:search', 'balances', 'payments:authorize', 'payments:capture', 'payments:refund'],
  'payctl-reporting-cli-',
);

const DAY_S = 86_400;
let proxy: CountingProxy;
/** The account's day when the first captures were made, and the day 40 days later. */
let firstDay: string;
let lastDay: string;
const ids = {} as Record<'twoA' | 'twoB' | 'one' | 'later' | 'refund', string>;

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const ndjson = (text: string) => text.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line));
const viaProxy = (...args: string[]) => {
  proxy.reset();
  return runCli(args, { env: { ...s.env, PAYCTL_BASE_URL: proxy.url } });
};

async function authorize(amount: string, invoiceId?: string): Promise<string> {
  const extra = invoiceId ? ['--invoice-id', invoiceId] : [];
  return okJson(await s.cli('payments', 'authorize', '--amount', amount, '--currency', 'USD', ...extra, '--json')).id as string;
}

beforeAll(async () => {
  proxy = await countingProxy(s.harness.url);
  const now = Date.parse((await s.harness.request('GET', '/_payctl/clock')).body.now);
  firstDay = day(now);
  // Two captures of one order share its invoice id: INV-TWO.
  const shared = await authorize('25.00', 'INV-TWO');
  ids.twoA = okJson(await s.cli('payments', 'capture', shared, '--amount', '10.00', '--yes', '--json')).id;
  ids.twoB = okJson(await s.cli('payments', 'capture', shared, '--amount', '15.00', '--final', '--yes', '--json')).id;
  ids.one = okJson(await s.cli('payments', 'capture', await authorize('40.00'), '--invoice-id', 'INV-ONE', '--yes', '--json')).id;
  await s.harness.advanceClock(40 * DAY_S);
  lastDay = day(now + 40 * DAY_S * 1000);
  ids.later = okJson(await s.cli('payments', 'capture', await authorize('30.00'), '--invoice-id', 'INV-LATER', '--yes', '--json')).id;
  ids.refund = okJson(await s.cli('payments', 'refund', ids.later, '--amount', '5.00', '--currency', 'USD', '--yes', '--json')).id;
}, 180_000);

afterAll(async () => {
  await proxy?.close();
});

describe('transactions search', () => {
  it('one day is one request, and --json prints exactly the API page', async () => {
    const result = await viaProxy('transactions', 'search', '--from', firstDay, '--to', firstDay, '--json');
    const page = okJson(result);
    expect(proxy.withQuery).toHaveLength(1);
    const query = proxy.withQuery[0]!.slice('GET '.length);
    expect(query).toContain(`start_date=${firstDay}T00%3A00%3A00Z`);
    const api = await s.harness.request('GET', query.replace(/^http:\/\/[^/]+/, ''));
    // Equal but for the moment each answer was made.
    const { last_refreshed_datetime: refreshed, ...rest } = page;
    expect(refreshed).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect({ ...api.body, last_refreshed_datetime: undefined }).toEqual({ ...rest, last_refreshed_datetime: undefined });
    expect(page.transaction_details.map((d: any) => d.transaction_info.transaction_id)).toEqual([ids.twoA, ids.twoB, ids.one]);
  });

  it('a 41-day range is split into two 31-day requests that meet, and --json prints NDJSON', async () => {
    const result = await viaProxy('transactions', 'search', '--from', firstDay, '--to', lastDay, '--json');
    expect(result.code, result.stderr).toBe(0);
    const lines = ndjson(result.stdout);
    expect(lines.map((d) => d.transaction_info.transaction_id)).toEqual([ids.twoA, ids.twoB, ids.one, ids.later, ids.refund]);
    expect(lines.map((d) => d.transaction_info.transaction_event_code)).toEqual(['T0006', 'T0006', 'T0006', 'T0006', 'T1107']);
    const windows = proxy.withQuery.map((line) => new URL(line.slice('GET '.length), 'http://x').searchParams);
    expect(windows.map((w) => [w.get('start_date'), w.get('end_date')])).toEqual([
      [`${firstDay}T00:00:00Z`, `${day(Date.parse(firstDay) + 31 * DAY_S * 1000)}T00:00:00Z`],
      [`${day(Date.parse(firstDay) + 31 * DAY_S * 1000)}T00:00:00Z`, `${day(Date.parse(lastDay) + DAY_S * 1000)}T00:00:00Z`],
    ]);
    // Piped stderr gets no progress line.
    expect(result.stderr).not.toContain('Searching');
  });

  it('without --all reads one page per window and says more exist; --all follows every page', async () => {
    const one = await viaProxy('transactions', 'search', '--from', firstDay, '--to', lastDay, '--page-size', '2');
    expect(one.code, one.stderr).toBe(0);
    const rows = one.stdout.trim().split('\n').map((line) => line.split('\t'));
    expect(rows[0]).toEqual(['Date', 'ID', 'Code', 'Status', 'Amount', 'Fee', 'Invoice', 'Custom', 'Reference']);
    expect(rows.slice(1).map((row) => row[1])).toEqual([ids.twoA, ids.twoB, ids.later, ids.refund]);
    expect(one.stderr).toContain('More transactions exist in 1 of 2 windows: pass --all');
    expect(proxy.seen).toHaveLength(2);

    const all = await viaProxy('transactions', 'search', '--from', firstDay, '--to', lastDay, '--page-size', '2', '--all', '--json');
    expect(ndjson(all.stdout).map((d) => d.transaction_info.transaction_id)).toEqual([ids.twoA, ids.twoB, ids.one, ids.later, ids.refund]);
    // Window one: pages 1 and 2; window two: page 1.
    expect(proxy.withQuery.map((line) => new URL(line.slice('GET '.length), 'http://x').searchParams.get('page'))).toEqual([null, '2', null]);
    expect(all.stderr).not.toContain('More transactions');
  });

  it('--csv writes a header and one RFC 4180 record per transaction, the same values as --json', async () => {
    const csv = await s.cli('transactions', 'search', '--from', firstDay, '--to', lastDay, '--all', '--csv');
    expect(csv.code, csv.stderr).toBe(0);
    expect(csv.stdout.startsWith('transaction_id,reference_id,event_code,')).toBe(true);
    expect(csv.stdout.endsWith('\r\n')).toBe(true);
    const [header, ...records] = parseCsv(csv.stdout);
    const names = header?.cells ?? [];
    const rows = records.map((record) => Object.fromEntries(names.map((name, i) => [name, record.cells[i]])));
    const json = ndjson((await s.cli('transactions', 'search', '--from', firstDay, '--to', lastDay, '--all', '--json')).stdout);
    expect(rows).toHaveLength(json.length);
    rows.forEach((row, i) => {
      const info = json[i].transaction_info;
      expect(row).toMatchObject({
        transaction_id: info.transaction_id,
        event_code: info.transaction_event_code,
        amount: info.transaction_amount.value,
        currency: info.transaction_amount.currency_code,
        fee: info.fee_amount?.value ?? '',
        invoice_id: info.invoice_id ?? '',
        reference_id: info.paypal_reference_id ?? '',
      });
    });
    expect(rows.at(-1)).toMatchObject({ event_code: 'T1107', amount: '-5.00', reference_id: ids.later });
  });

  it('--invoice-id filters on this side, over every page of every window', async () => {
    const result = await viaProxy('transactions', 'search', '--from', firstDay, '--to', lastDay, '--invoice-id', 'INV-TWO', '--page-size', '1', '--json');
    expect(ndjson(result.stdout).map((d) => d.transaction_info.transaction_id)).toEqual([ids.twoA, ids.twoB]);
    expect(proxy.seen).toHaveLength(5); // 3 pages of one in window one, 2 in window two
    const none = await s.cli('transactions', 'search', '--from', firstDay, '--to', lastDay, '--invoice-id', 'INV-NOPE');
    expect([none.code, none.stdout.trim().split('\n').length]).toEqual([0, 1]);
    expect(none.stderr).toContain('No transactions match.');
  });

  it('the API filters pass through; bad input is exit 2 before any request, the server refusals exit 2 too', async () => {
    const refunds = await s.cli('transactions', 'search', '--from', firstDay, '--to', lastDay, '--type', 'T1107', '--amount=-10.00..-1.00', '--json');
    expect(ndjson(refunds.stdout).map((d) => d.transaction_info.transaction_id)).toEqual([ids.refund]);
    const ranged = await s.cli('transactions', 'search', '--from', firstDay, '--to', lastDay, '--amount', '20.00..40.00', '--currency', 'USD', '--json');
    expect(ndjson(ranged.stdout).map((d) => d.transaction_info.transaction_id)).toEqual([ids.one, ids.later]);
    for (const args of [
      ['--from', lastDay, '--to', firstDay],
      ['--from', firstDay, '--to', 'tomorrow'],
      ['--from', firstDay, '--to', lastDay, '--amount', '20..10'],
      ['--from', firstDay, '--to', lastDay, '--type', 'refund'],
      ['--from', firstDay, '--to', lastDay, '--page', '2'],
    ]) {
      const refused = await viaProxy('transactions', 'search', ...args);
      expect([refused.code, refused.stdout], refused.stderr).toEqual([2, '']);
      expect(proxy.seen).toEqual([]);
    }
    const unknownCode = await s.cli('transactions', 'search', '--from', firstDay, '--to', lastDay, '--type', 'T9999', '--json');
    expect(unknownCode.code).toBe(2);
    expect(JSON.parse(unknownCode.stderr).details[0]).toMatchObject({ field: 'transaction_type', location: 'query' });
    // A refused export writes nothing, not even its header.
    const refusedCsv = await s.cli('transactions', 'search', '--from', firstDay, '--to', lastDay, '--type', 'T9999', '--csv');
    expect([refusedCsv.code, refusedCsv.stdout]).toEqual([2, '']);
  });

  it('on a terminal: a table, and a progress line for a split range', async () => {
    const pty = runInPty(['transactions', 'search', '--from', firstDay, '--to', lastDay], { env: s.env, columns: 200 });
    const { code, screen } = await pty.done;
    expect(code, screen).toBe(0);
    expect(screen).toContain('Searching 2/2 31-day windows');
    expect(screen).toMatch(new RegExp(`${ids.refund}\\s+T1107\\s+S\\s+-5\\.00 USD`));
  });
});

describe('balances', () => {
  it('--json is the API answer; the table shows each currency; --as-of a day is its closing balance', async () => {
    const now = okJson(await s.cli('balances', '--json'));
    // Without --as-of the answer is for the server's now, a moment apart between two calls.
    const moment = ({ as_of_time, last_refresh_time, ...rest }: any) => rest;
    expect(moment(now)).toEqual(moment((await s.harness.request('GET', '/v1/reporting/balances')).body));
    expect(Object.keys(now).sort()).toEqual(['account_id', 'as_of_time', 'balances', 'last_refresh_time']);
    const usd = now.balances.find((b: any) => b.currency === 'USD');
    expect(usd.total_balance.currency_code).toBe('USD');

    const table = await s.cli('balances', '--currency', 'USD');
    const rows = table.stdout.trim().split('\n').map((line) => line.split('\t'));
    expect(rows[0]).toEqual(['Currency', 'Total', 'Available', 'Withheld', 'Primary']);
    expect(rows[1]?.slice(0, 2)).toEqual(['USD', `${usd.total_balance.value} USD`]);

    proxy.reset();
    const closing = okJson(await viaProxy('balances', '--as-of', firstDay, '--json'));
    expect(proxy.withQuery[0]).toContain(`as_of_time=${firstDay}T23%3A59%3A59.999Z`);
    const day0 = (await s.harness.request('GET', `/v1/reporting/balances?as_of_time=${firstDay}T23:59:59.999Z`)).body;
    // last_refresh_time is the server's now, so two calls may be a second apart.
    const unrefreshed = ({ last_refresh_time, ...rest }: any) => rest;
    expect(unrefreshed(closing)).toEqual(unrefreshed(day0));
    expect(closing.last_refresh_time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    // Before the first capture's day the balance had not moved yet.
    const before = await s.cli('balances', '--as-of', day(Date.parse(firstDay) - DAY_S * 1000));
    expect(before.stderr).toContain('No balance');
    expect(before.stdout.trim().split('\n')).toHaveLength(1);
  });
});

describe('payments refund --invoice-id', () => {
  it('no capture with the invoice id: exit 3, nothing refunded', async () => {
    const result = await viaProxy('payments', 'refund', '--invoice-id', 'INV-NOPE', '--yes');
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('no capture with invoice id INV-NOPE in the last 180 days');
    expect(proxy.seen.filter((line) => line.startsWith('POST'))).toEqual([]);
  });

  it('two captures with the invoice id: exit 2, both listed (in the details with --json), nothing refunded', async () => {
    const result = await viaProxy('payments', 'refund', '--invoice-id', 'INV-TWO', '--yes');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(ids.twoA);
    expect(result.stderr).toContain(ids.twoB);
    expect(proxy.seen.filter((line) => line.startsWith('POST'))).toEqual([]);
    const json = await s.cli('payments', 'refund', '--invoice-id', 'INV-TWO', '--yes', '--json');
    expect(json.stdout).toBe('');
    const report = JSON.parse(json.stderr);
    expect(report.name).toBe('AMBIGUOUS_INVOICE_ID');
    expect(report.details.map((d: any) => d.description)).toEqual([expect.stringContaining(ids.twoA), expect.stringContaining(ids.twoB)]);
  });

  it('one capture: searches 180 days in six 31-day requests, then refunds it without reading it again', async () => {
    const result = await viaProxy('payments', 'refund', '--invoice-id', 'INV-ONE', '--amount', '5.00', '--yes', '--json');
    const refund = okJson(result);
    expect(refund).toMatchObject({ status: 'COMPLETED', amount: { value: '5.00', currency_code: 'USD' } });
    expect(refund.invoice_id).toBeUndefined();
    // The merchant's clock (the search's dates are on it), the six windows, the refund.
    expect(proxy.seen).toEqual(['GET /_payctl/clock', ...Array(6).fill('GET /v1/reporting/transactions'), `POST /v2/payments/captures/${ids.one}/refund`]);
    const windows = proxy.withQuery.slice(1, 7).map((line) => new URL(line.slice('GET '.length), 'http://x').searchParams);
    for (let i = 1; i < windows.length; i += 1) expect(windows[i]?.get('start_date')).toBe(windows[i - 1]?.get('end_date'));
    expect(windows.map((w) => [w.get('transaction_type'), w.get('page_size')])).toEqual(Array(6).fill(['T0006', '500']));
    const since = await viaProxy('payments', 'refund', '--invoice-id', 'INV-LATER', '--since', '31', '--amount', '1.00', '--yes', '--json');
    expect(okJson(since).amount.value).toBe('1.00');
    expect(proxy.seen.filter((line) => line.startsWith('GET /v1/reporting'))).toHaveLength(1);
  });

  it('--since shorter than the capture\'s age finds nothing (exit 3)', async () => {
    const result = await s.cli('payments', 'refund', '--invoice-id', 'INV-ONE', '--since', '30', '--yes');
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('--since');
  });

  it('on a terminal the confirmation shows the capture the search found', async () => {
    const pty = runInPty(['payments', 'refund', '--invoice-id', 'INV-LATER', '--amount', '2.00'], { env: s.env, columns: 220 });
    await pty.waitFor(new RegExp(`Refund 2\\.00 USD of capture ${ids.later} \\(30\\.00 USD, captured .*, invoice INV-LATER\\)\\?`));
    pty.type('y\r');
    const { code, screen } = await pty.done;
    expect(code, screen).toBe(0);
    expect(screen).toMatch(/Amount\s+2\.00 USD/);
  });
});
