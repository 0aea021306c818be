import { Flags } from '@oclif/core';
import { UsageError } from '../../lib/api/errors.js';
import type { TransactionDetail } from '../../lib/api/reporting.js';
import { BaseCommand } from '../../lib/base-command.js';
import { currencyFlag, givenOptions, pageFlag, pageSizeFlag } from '../../lib/flags.js';
import { ProgressLine } from '../../lib/render/progress.js';
import { TRANSACTION_COLUMNS } from '../../lib/render/transactions.js';
import {
  amountRange,
  csvHeader,
  csvRow,
  hasLocalFilters,
  matchesLocalFilters,
  parseRange,
  searchPages,
  splitRange,
  type LocalFilters,
  type SearchPlan,
  WINDOW_DAYS,
} from '../../lib/reporting.js';

export default class TransactionsSearch extends BaseCommand<typeof TransactionsSearch> {
  static override summary = 'Search the movements of your balance between two dates';

  static override description = `Lists every movement of the balance (captures, refunds, payouts and their fees and returns, dispute reversals, top-ups) from --from to --to, both included: a date (YYYY-MM-DD, a UTC day on the merchant's clock) includes the whole day, a date-time (RFC 3339) that second. A table on a terminal, tab-separated values when piped, --csv for a reconciliation export (a header row, RFC 4180 quoting).

The API searches at most 31 days at a time: a longer range is cut into 31-day requests, with a progress line on stderr when stderr is a terminal. Without --all, each request reads its first page (--page picks another in a range of at most 31 days); --all follows every page.

--json prints the API's page exactly when the search is one request (one window, no --all, no --invoice-id or --custom-id); otherwise one transaction per line (NDJSON), as the API wrote it.

--invoice-id and --custom-id are not filters of the API: payctl reads every page of the range (they imply --all) and keeps the matching transactions.`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> --from 2026-11-01 --to 2026-11-30',
    '<%= config.bin %> <%= command.id %> --from 2026-01-01 --to 2026-12-31 --all --csv > 2026.csv',
    '<%= config.bin %> <%= command.id %> --from 2026-11-01 --to 2026-11-30 --amount 10.00..20.00 --currency USD --status S',
    '<%= config.bin %> <%= command.id %> --from 2026-11-01T00:00:00Z --to 2026-11-07T12:00:00Z --invoice-id INV-1001 --json',
  ];

  static override flags = {
    from: Flags.string({ description: 'First day (YYYY-MM-DD) or instant (RFC 3339) included', required: true, helpValue: 'DATE' }),
    to: Flags.string({ description: 'Last day (YYYY-MM-DD, whole day) or instant (RFC 3339) included', required: true, helpValue: 'DATE' }),
    status: Flags.string({ description: 'S success, P pending, D denied, V reversed', options: ['S', 'P', 'D', 'V'] }),
    type: Flags.string({ description: 'Event code, e.g. T0006 (a payment), T1107 (a refund)', helpValue: 'CODE' }),
    amount: Flags.string({
      description: 'Gross amount, or a range A..B (both included), in --currency decimals (two without it); negative for money out',
      helpValue: 'RANGE',
    }),
    currency: currencyFlag({ description: 'Only transactions in this currency' }),
    'transaction-id': Flags.string({ description: 'Only this transaction id', helpValue: 'ID' }),
    'invoice-id': Flags.string({ helpValue: 'ID', description: 'Only transactions with this invoice id (filtered by payctl, reads every page)' }),
    'custom-id': Flags.string({ helpValue: 'ID', description: 'Only transactions with this custom field (filtered by payctl, reads every page)' }),
    all: Flags.boolean({ description: 'Follow every page of every 31-day window', exclusive: ['page'] }),
    page: pageFlag({ max: 2_147_483_647 }),
    'page-size': pageSizeFlag({ max: 500, items: 'Transactions' }),
    csv: Flags.boolean({ description: 'CSV with a header row, for reconciliation', exclusive: ['json'] }),
  };

  async run(): Promise<unknown> {
    const { flags } = this;
    if (flags.type !== undefined && !/^T\d{4}$/.test(flags.type)) throw new UsageError(`--type: "${flags.type}" is not an event code like T0006`);
    const filters: LocalFilters = {
      ...(flags['invoice-id'] !== undefined ? { invoiceId: flags['invoice-id'] } : {}),
      ...(flags['custom-id'] !== undefined ? { customId: flags['custom-id'] } : {}),
    };
    const windows = splitRange(parseRange(flags.from, flags.to));
    const all = flags.all || hasLocalFilters(filters);
    if (flags.page !== undefined && hasLocalFilters(filters)) throw new UsageError('--page cannot go with --invoice-id or --custom-id (they read every page)');
    if (flags.page !== undefined && windows.length > 1) throw new UsageError(`--page needs a range of at most ${WINDOW_DAYS} days (this one takes ${windows.length} requests); use --all`);
    const progress = new ProgressLine(windows.length > 1 && Boolean(process.stderr.isTTY));
    const plan: SearchPlan = {
      windows,
      all,
      query: {
        ...givenOptions({
          transaction_status: flags.status,
          transaction_type: flags.type,
          transaction_amount: flags.amount ? amountRange(flags.amount, flags.currency) : undefined,
          transaction_currency: flags.currency,
          transaction_id: flags['transaction-id'],
          page_size: flags['page-size'],
        }),
        // The API's default is transaction_info only; JSON gets payer, shipping and cart too.
        ...(this.jsonEnabled() ? { fields: 'all' } : {}),
      },
      ...(flags.page !== undefined ? { page: flags.page } : {}),
      onWindow: (index, count) => progress.update(`Searching ${index + 1}/${count} 31-day windows`, true),
    };
    const exact = this.jsonEnabled() && windows.length === 1 && !all;
    const rows: TransactionDetail[] = [];
    let more = 0;
    let exactPage: unknown;
    // The header waits for the first answer: a search refused at once leaves stdout empty.
    let header = flags.csv ? csvHeader() : '';
    try {
      for await (const { page, raw } of searchPages(this.client(), plan)) {
        exactPage = raw;
        if (!all && (page.total_pages ?? 1) > (page.page ?? plan.page ?? 1)) more += 1;
        const matching = page.transaction_details.filter((detail) => matchesLocalFilters(detail, filters));
        if (flags.csv) process.stdout.write(header + matching.map(csvRow).join(''));
        else if (this.jsonEnabled() && !exact) process.stdout.write(matching.map((detail) => `${JSON.stringify(detail)}\n`).join(''));
        else rows.push(...matching);
        header = '';
      }
    } finally {
      progress.done();
    }
    if (more > 0) this.notice(`More transactions exist${windows.length > 1 ? ` in ${more} of ${windows.length} windows` : ''}: pass --all to read every page.`);
    if (exact) return exactPage;
    if (!flags.csv && !this.jsonEnabled()) {
      this.renderTable(rows, TRANSACTION_COLUMNS);
      if (rows.length === 0) this.notice('No transactions match.');
    }
    return undefined;
  }
}
