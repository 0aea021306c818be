import { setTimeout as sleep } from 'node:timers/promises';
import { Args, Flags } from '@oclif/core';
import type { ApiClient } from '../../lib/api/client.js';
import { TimeoutError, UsageError } from '../../lib/api/errors.js';
import { FINAL_BATCH_STATUSES, getPayoutBatch, type PayoutBatch } from '../../lib/api/payouts.js';
import { BaseCommand } from '../../lib/base-command.js';
import { pageFlag, pageSizeFlag } from '../../lib/flags.js';
import { parseDuration } from '../../lib/duration.js';
import { formatDate, formatValue } from '../../lib/render/format.js';

/** Items read per request while waiting (the service's largest page). */
const WAIT_PAGE_SIZE = 1000;
const POLL_MS = 500;

export default class PayoutsGet extends BaseCommand<typeof PayoutsGet> {
  static override summary = 'Show a payout batch: its header and a page of items';

  static override description = `Shows the batch's status, totals and fees, and one page of its items. With --wait, polls
until the batch is done (SUCCESS or DENIED), showing progress on stderr, then shows it; gives up
with exit code 8 after --timeout.`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> 5UXD2E8A7EBQJ',
    '<%= config.bin %> <%= command.id %> 5UXD2E8A7EBQJ --wait --timeout 2m',
    '<%= config.bin %> <%= command.id %> 5UXD2E8A7EBQJ --page 2 --page-size 500 --json',
  ];

  static override args = {
    batch_id: Args.string({ description: 'Payout batch id (payout_batch_id)', required: true }),
  };

  static override flags = {
    page: pageFlag({ max: 1000, default: 1 }),
    'page-size': pageSizeFlag({ max: 1000, default: 100 }),
    wait: Flags.boolean({ description: 'Wait until the batch is done, showing progress on stderr' }),
    timeout: Flags.string({ description: 'How long --wait waits: 30s, 5m, 1h', default: '10m' }),
  };

  async run(): Promise<PayoutBatch> {
    const client = this.client();
    const id = this.args.batch_id;
    if (this.flags.wait) await this.waitUntilDone(client, id);
    const batch = await getPayoutBatch(client, id, { page: this.flags.page, pageSize: this.flags['page-size'], totalRequired: true });
    this.show(batch);
    return batch;
  }

  private timeoutMs(): number {
    try {
      const seconds = parseDuration(this.flags.timeout);
      if (seconds <= 0) throw new Error('the timeout must be greater than zero');
      return seconds * 1000;
    } catch (error) {
      throw new UsageError(`--timeout: ${(error as Error).message}`);
    }
  }

  /**
   * Items settle in position order, so progress is counted from the first page that still has a
   * PENDING item: pages before it are done and are not read again.
   */
  private async waitUntilDone(client: ApiClient, id: string): Promise<void> {
    const deadline = Date.now() + this.timeoutMs();
    const progress = new ProgressLine();
    let page = 1;
    let status = '';
    try {
      for (let polls = 0; ; polls += 1) {
        const batch = await getPayoutBatch(client, id, { page, pageSize: WAIT_PAGE_SIZE, totalRequired: true });
        status = batch.batch_header?.batch_status ?? '';
        const total = batch.total_items ?? 0;
        const settled = (batch.items ?? []).filter((item) => item.transaction_status !== 'PENDING').length;
        const done = FINAL_BATCH_STATUSES.includes(status);
        progress.show(done ? total : Math.min(total, (page - 1) * WAIT_PAGE_SIZE + settled), total, status);
        if (done) return;
        if (settled === WAIT_PAGE_SIZE && page < (batch.total_pages ?? 0)) {
          page += 1;
          continue;
        }
        if (Date.now() >= deadline) {
          throw new TimeoutError(`payout batch ${id} is still ${status} after ${this.flags.timeout}; run \`payctl payouts get ${id} --wait\` again to keep waiting`);
        }
        await sleep(Math.min(POLL_MS, Math.max(0, deadline - Date.now())));
      }
    } finally {
      progress.end();
    }
  }

  private show(batch: PayoutBatch): void {
    const header = batch.batch_header;
    const money = (value: { currency: string; value: string } | undefined) => (value ? `${value.value} ${value.currency}` : '');
    this.renderDetail([
      ['Batch id', header?.payout_batch_id],
      ['Status', header?.batch_status, 'status'],
      ['Sender batch id', header?.sender_batch_header?.sender_batch_id],
      ['Items', batch.total_items === undefined ? '' : String(batch.total_items)],
      ['Amount', money(header?.amount)],
      ['Fees', money(header?.fees)],
      ['Created', formatDate(header?.time_created)],
      ['Completed', formatDate(header?.time_completed)],
    ]);
    const items = batch.items ?? [];
    if (items.length === 0) return;
    this.log('');
    this.renderTable(items, [
      { header: 'Item id', value: (item) => item.payout_item_id },
      { header: 'Status', value: (item) => item.transaction_status, status: true },
      { header: 'Receiver', value: (item) => item.payout_item.receiver },
      { header: 'Amount', value: (item) => money(item.payout_item.amount) },
      { header: 'Fee', value: (item) => money(item.payout_item_fee) },
      { header: 'Sender item id', value: (item) => item.payout_item.sender_item_id },
      { header: 'Error', value: (item) => formatValue(item.errors?.name) },
    ]);
    if ((batch.total_pages ?? 1) > this.flags.page) {
      this.notice(`Page ${this.flags.page} of ${batch.total_pages}: pass --page ${this.flags.page + 1} for more.`);
    }
  }
}

/** A progress bar redrawn in place on a terminal; on a pipe, one line per change of status. */
class ProgressLine {
  private readonly tty = Boolean(process.stderr.isTTY);
  private lastStatus = '';
  private drawn = false;

  show(settled: number, total: number, status: string): void {
    if (this.tty) {
      const width = 30;
      const filled = total === 0 ? width : Math.round((settled / total) * width);
      const bar = `${'#'.repeat(filled)}${'-'.repeat(width - filled)}`;
      process.stderr.write(`\r[${bar}] ${settled}/${total} items  ${status}   `);
      this.drawn = true;
    } else if (status !== this.lastStatus) {
      process.stderr.write(`${status}: ${settled}/${total} items settled\n`);
    }
    this.lastStatus = status;
  }

  end(): void {
    if (this.drawn) process.stderr.write('\n');
    this.drawn = false;
  }
}
