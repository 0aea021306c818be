import { Flags } from '@oclif/core';
import { UsageError } from '../../lib/api/errors.js';
import { searchInvoices, type InvoicePage } from '../../lib/api/invoices.js';
import { BaseCommand } from '../../lib/base-command.js';
import { currencyFlag, givenOptions, pageFlag, pageSizeFlag } from '../../lib/flags.js';
import { canonicalDecimal } from '../../lib/money.js';
import { INVOICE_COLUMNS } from '../../lib/render/invoices.js';

const DATE = /^\d{4}-\d{2}-\d{2}$/;

export default class InvoicesSearch extends BaseCommand<typeof InvoicesSearch> {
  static override summary = 'Search invoices by recipient, status, number, amount or date';

  static override description = `Finds the invoices that match every criterion given, newest first (one page; use --page).
Recipient names and business names match on part of the name; e-mail matches whole, ignoring case.
--json prints the API's page as is.`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> --recipient-email ada@example.com',
    '<%= config.bin %> <%= command.id %> --status SENT --status UNPAID --from 2025-01-01 --to 2025-03-31',
    '<%= config.bin %> <%= command.id %> --min-total 100 --max-total 500 --currency EUR --json',
  ];

  static override flags = {
    'recipient-email': Flags.string({ description: "Recipient's e-mail address" }),
    'recipient-name': Flags.string({ description: "Part of the recipient's surname" }),
    business: Flags.string({ description: "Part of the recipient's business name" }),
    status: Flags.string({ description: 'Status (repeatable, up to 5)', multiple: true }),
    number: Flags.string({ description: 'Invoice number' }),
    reference: Flags.string({ description: 'Reference' }),
    memo: Flags.string({ description: 'Part of the memo' }),
    currency: currencyFlag(),
    'min-total': Flags.string({ description: 'Smallest total (needs --currency)', dependsOn: ['currency', 'max-total'] }),
    'max-total': Flags.string({ description: 'Largest total (needs --currency)', dependsOn: ['currency', 'min-total'] }),
    from: Flags.string({ description: 'Invoice date from (YYYY-MM-DD)', dependsOn: ['to'] }),
    to: Flags.string({ description: 'Invoice date to (YYYY-MM-DD)', dependsOn: ['from'] }),
    page: pageFlag({ max: 1000 }),
    'page-size': pageSizeFlag({ max: 100 }),
    total: Flags.boolean({ description: 'Ask for total_items and total_pages (shown on stderr)' }),
  };

  async run(): Promise<InvoicePage> {
    const f = this.flags;
    const search: Record<string, unknown> = {};
    if (f['recipient-email']) search.recipient_email = f['recipient-email'];
    if (f['recipient-name']) search.recipient_last_name = f['recipient-name'];
    if (f.business) search.recipient_business_name = f.business;
    if (f.status?.length) search.status = f.status.map((status) => status.toUpperCase());
    if (f.number) search.invoice_number = f.number;
    if (f.reference) search.reference = f.reference;
    if (f.memo) search.memo = f.memo;
    if (f.currency) search.currency_code = f.currency;
    if (f['min-total'] && f['max-total'] && f.currency) {
      search.total_amount_range = {
        lower_amount: { currency_code: f.currency, value: canonicalDecimal(f['min-total']) },
        upper_amount: { currency_code: f.currency, value: canonicalDecimal(f['max-total']) },
      };
    }
    if (f.from && f.to) {
      if (!DATE.test(f.from) || !DATE.test(f.to)) throw new UsageError('--from and --to must be YYYY-MM-DD');
      search.invoice_date_range = { start: f.from, end: f.to };
    }
    const page = await searchInvoices(this.client(), search, {
      ...givenOptions({ page: f.page, pageSize: f['page-size'] }),
      ...(f.total ? { totalRequired: true } : {}),
    });
    this.renderTable(page.items, INVOICE_COLUMNS);
    if (page.total_items !== undefined) this.notice(`${page.total_items} invoices in ${page.total_pages ?? 0} pages`);
    return page;
  }
}
