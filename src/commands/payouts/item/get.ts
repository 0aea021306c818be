import { Args } from '@oclif/core';
import { getPayoutItem, type PayoutItem } from '../../../lib/api/payouts.js';
import { BaseCommand } from '../../../lib/base-command.js';
import { formatDate } from '../../../lib/render/format.js';

export default class PayoutsItemGet extends BaseCommand<typeof PayoutsItemGet> {
  static override summary = 'Show one payout item';

  static override description = `Shows an item's status (SUCCESS, UNCLAIMED, RETURNED, FAILED, ...), its receiver, amount
and fee, and the error that explains a failed or unclaimed item.`;

  static override examples = ['<%= config.bin %> <%= command.id %> 8AELMXH8UB2P8', '<%= config.bin %> <%= command.id %> 8AELMXH8UB2P8 --json'];

  static override args = {
    item_id: Args.string({ description: 'Payout item id (payout_item_id)', required: true }),
  };

  async run(): Promise<PayoutItem> {
    const item = await getPayoutItem(this.client(), this.args.item_id);
    const detail = item.payout_item;
    this.renderDetail([
      ['Item id', item.payout_item_id],
      ['Status', item.transaction_status, 'status'],
      ['Batch id', item.payout_batch_id],
      ['Sender batch id', item.sender_batch_id],
      ['Receiver', `${detail.receiver}${detail.recipient_type ? ` (${detail.recipient_type})` : ''}`],
      ['Amount', `${detail.amount.value} ${detail.amount.currency}`],
      ['Fee', item.payout_item_fee ? `${item.payout_item_fee.value} ${item.payout_item_fee.currency}` : ''],
      ['Sender item id', detail.sender_item_id],
      ['Note', detail.note],
      ['Transaction id', item.transaction_id],
      ['Processed', formatDate(item.time_processed)],
      ['Error', item.errors ? `${item.errors.name}${item.errors.message ? `: ${item.errors.message}` : ''}` : ''],
    ]);
    return item;
  }
}
