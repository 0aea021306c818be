import { Args } from '@oclif/core';
import { cancelPayoutItem, getPayoutItem, type PayoutItem } from '../../../lib/api/payouts.js';
import { BaseCommand } from '../../../lib/base-command.js';
import { requestIdFlag, yesFlag } from '../../../lib/flags.js';

export default class PayoutsItemCancel extends BaseCommand<typeof PayoutsItemCancel> {
  static override summary = 'Cancel an unclaimed payout item and take its money back';

  static override description = `Only an UNCLAIMED item (its receiver has no account yet) can be cancelled: it becomes
RETURNED and its amount and fee go back to your balance. Any other status is refused (exit 5).
Asks for confirmation on a terminal; scripts pass --yes.`;

  static override examples = ['<%= config.bin %> <%= command.id %> 8AELMXH8UB2P8', '<%= config.bin %> <%= command.id %> 8AELMXH8UB2P8 --yes --json'];

  static override args = {
    item_id: Args.string({ description: 'Payout item id (payout_item_id)', required: true }),
  };

  static override flags = {
    yes: yesFlag(),
    'request-id': requestIdFlag(),
  };

  async run(): Promise<PayoutItem> {
    const client = this.client();
    const id = this.args.item_id;
    if (!this.flags.yes) {
      // Show what would be cancelled before asking (and fail early on an unknown id).
      const item = await getPayoutItem(client, id);
      const amount = item.payout_item.amount;
      await this.confirm(`Cancel payout item ${id} (${amount.value} ${amount.currency} to ${item.payout_item.receiver}, now ${item.transaction_status})?`);
    }
    const item = await cancelPayoutItem(client, id, this.requestOptions());
    this.renderDetail([
      ['Item id', item.payout_item_id],
      ['Status', item.transaction_status, 'status'],
      ['Returned', `${item.payout_item.amount.value} ${item.payout_item.amount.currency}`],
    ]);
    return item;
  }
}
