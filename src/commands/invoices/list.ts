import { Flags } from '@oclif/core';
import { listInvoices, searchInvoices, type Invoice, type InvoicePage } from '../../lib/api/invoices.js';
import { BaseCommand } from '../../lib/base-command.js';
import { pageFlag, pageSizeFlag } from '../../lib/flags.js';
import { INVOICE_COLUMNS } from '../../lib/render/invoices.js';

const STATUSES = [
  'DRAFT', 'SENT', 'SCHEDULED', 'PAID', 'MARKED_AS_PAID', 'CANCELLED', 'REFUNDED', 'PARTIALLY_PAID',
  'PARTIALLY_REFUNDED', 'MARKED_AS_REFUNDED', 'UNPAID', 'PAYMENT_PENDING',
];

/** The service serves pages 1..1000. */
const LAST_PAGE = 1000;

export default class InvoicesList extends BaseCommand<typeof InvoicesList> {
  static override summary = 'List invoices, newest first';

  static override description = `Shows one page of invoices (20 by default) as a table: number, id, recipient, status,
total and amount due. --status filters (through the search API). --all follows the pages to the
end (100 per page, at most the API's 1000 pages); with --json it prints one invoice per line
(NDJSON) when piped, a JSON array on a terminal. Without --all, --json prints the API's page as is.`;

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --status SENT --status PARTIALLY_PAID --page-size 50',
    '<%= config.bin %> <%= command.id %> --all --json | jq -r .id',
  ];

  static override flags = {
    page: pageFlag({ max: 1000, exclusive: ['all'] }),
    'page-size': pageSizeFlag({ max: 100 }),
    all: Flags.boolean({ description: 'Follow every page' }),
    status: Flags.string({ description: 'Only invoices in this status (repeatable, up to 5)', multiple: true, options: STATUSES }),
    total: Flags.boolean({ description: 'Ask for total_items and total_pages (shown on stderr)' }),
  };

  async run(): Promise<InvoicePage | Invoice[] | undefined> {
    const client = this.client();
    const statuses = this.flags.status;
    const fetchPage = (page: number, pageSize: number | undefined) => {
      const options = { page, ...(pageSize ? { pageSize } : {}), ...(this.flags.total ? { totalRequired: true } : {}) };
      return statuses?.length ? searchInvoices(client, { status: statuses }, options) : listInvoices(client, options);
    };
    if (!this.flags.all) {
      const page = await fetchPage(this.flags.page ?? 1, this.flags['page-size']);
      this.renderTable(page.items, INVOICE_COLUMNS);
      if (page.total_items !== undefined) this.notice(`${page.total_items} invoices in ${page.total_pages ?? 0} pages`);
      return page;
    }
    const ndjson = this.jsonEnabled() && !process.stdout.isTTY;
    const size = this.flags['page-size'] ?? 100;
    const all: Invoice[] = [];
    for (let page = 1; page <= LAST_PAGE; page += 1) {
      const result = await fetchPage(page, size);
      if (ndjson) for (const invoice of result.items) process.stdout.write(`${JSON.stringify(invoice)}\n`);
      else all.push(...result.items);
      if (result.items.length < size || !result.links?.some((link) => link.rel === 'next')) break;
    }
    if (ndjson) return undefined;
    this.renderTable(all, INVOICE_COLUMNS);
    return all;
  }
}
