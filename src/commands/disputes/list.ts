import { Flags } from '@oclif/core';
import { listDisputes, nextPageToken, type Dispute, type DisputeList } from '../../lib/api/disputes.js';
import { BaseCommand } from '../../lib/base-command.js';
import { givenOptions, pageSizeFlag } from '../../lib/flags.js';
import { stdoutChalk } from '../../lib/render/colors.js';
import { formatDate, formatMoney } from '../../lib/render/format.js';
import { dueText } from '../../lib/render/disputes.js';

const STATES = ['OPEN_INQUIRIES', 'REQUIRED_ACTION', 'REQUIRED_OTHER_PARTY_ACTION', 'UNDER_PAYPAL_REVIEW', 'APPEALABLE', 'RESOLVED'];
/** With --all, at most this many pages are fetched (50 disputes each). */
const MAX_PAGES = 200;
const DAY_MS = 86_400_000;

export default class DisputesList extends BaseCommand<typeof DisputesList> {
  static override summary = 'List disputes, newest first';

  static override description = `One page of your disputes (or every page with --all): id, reason, stage, status, amount and the
date by which you must answer, highlighted on a terminal when it is less than three days away (red
under one day). --json prints the API's page; with --all, one document with every item.`;

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --state REQUIRED_ACTION --all',
    '<%= config.bin %> <%= command.id %> --transaction-id 3C679366HH908993F --json',
  ];

  static override flags = {
    'transaction-id': Flags.string({ description: 'Only disputes of this capture (transaction) id' }),
    state: Flags.string({ description: 'Only disputes in this state (repeatable)', options: STATES, multiple: true }),
    'start-time': Flags.string({ description: 'Only disputes opened at or after this RFC 3339 time (within 180 days)' }),
    'page-size': pageSizeFlag({ max: 50, items: 'Disputes' }),
    all: Flags.boolean({ description: 'Fetch every page' }),
  };

  async run(): Promise<DisputeList> {
    const client = this.client();
    const options = givenOptions({
      transactionId: this.flags['transaction-id'],
      states: this.flags.state,
      startTime: this.flags['start-time'],
      pageSize: this.flags['page-size'],
    });
    let page = await listDisputes(client, options);
    const items: Dispute[] = [...page.items];
    for (let pages = 1; this.flags.all && pages < MAX_PAGES; pages += 1) {
      const token = nextPageToken(page);
      if (!token) break;
      page = await listDisputes(client, { ...options, nextPageToken: token });
      items.push(...page.items);
    }
    const chalk = stdoutChalk();
    const clock = await this.clock();
    // Highlighted by how much time is left on the account's clock, the one the date is on.
    const dueStyle = (text: string, dispute: Dispute) => {
      const left = Date.parse(dispute.seller_response_due_date ?? '') - clock.now;
      return left < DAY_MS ? chalk.red.bold(text) : left < 3 * DAY_MS ? chalk.yellow(text) : text;
    };
    this.renderTable(items, [
      { header: 'ID', value: (dispute) => dispute.dispute_id },
      { header: 'Reason', value: (dispute) => dispute.reason },
      { header: 'Stage', value: (dispute) => dispute.dispute_life_cycle_stage },
      { header: 'Status', value: (dispute) => dispute.status, status: true },
      { header: 'Amount', value: (dispute) => formatMoney(dispute.dispute_amount) },
      { header: 'Seller due', value: (dispute) => (dispute.seller_response_due_date ? dueText(dispute.seller_response_due_date, clock) : ''), style: dueStyle },
    ]);
    if (items.length === 0) this.notice('No disputes match.');
    else if (!this.flags.all && nextPageToken(page)) this.notice('More disputes exist: pass --all to list every page.');
    return this.flags.all ? { items, links: page.links.filter((link) => link.rel !== 'next') } : page;
  }
}
