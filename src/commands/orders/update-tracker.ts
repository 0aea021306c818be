import { Args, Flags } from '@oclif/core';
import { UsageError } from '../../lib/api/errors.js';
import { trackersOf, updateTracker, type Order } from '../../lib/api/orders.js';
import { orderIdArg } from '../../lib/args.js';
import { BaseCommand } from '../../lib/base-command.js';
import { requestIdFlag, yesFlag } from '../../lib/flags.js';
import { formatDate } from '../../lib/render/format.js';

export default class OrdersUpdateTracker extends BaseCommand<typeof OrdersUpdateTracker> {
  static override summary = "Cancel a shipment tracker, or change whether the payer is notified";

  static override description = `Changes a tracker added with "payctl orders track". The only status a tracker can be given is
CANCELLED, which is final (asks for confirmation on a terminal unless --yes); the same tracking number
can then be added again.`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> 5O190127TN364715T 3C679366HH908993F-1Z999AA10123456784 --status CANCELLED --yes',
    '<%= config.bin %> <%= command.id %> 5O190127TN364715T 3C679366HH908993F-1Z999AA10123456784 --notify-payer --json',
  ];

  static override args = {
    order: orderIdArg(),
    tracker: Args.string({ description: 'Tracker id (capture id-tracking number)', required: true }),
  };

  static override flags = {
    status: Flags.string({ description: 'New status of the tracker', options: ['CANCELLED'] }),
    'notify-payer': Flags.boolean({ description: 'Email the tracking information to the payer (--no-notify-payer to stop)', allowNo: true }),
    'request-id': requestIdFlag(),
    yes: yesFlag(),
  };

  async run(): Promise<Order> {
    const { flags } = this;
    if (flags.status === undefined && flags['notify-payer'] === undefined) {
      throw new UsageError('nothing to change: pass --status CANCELLED or --notify-payer / --no-notify-payer');
    }
    if (flags.status === 'CANCELLED') await this.confirm(`Cancel tracker ${this.args.tracker}?`);
    const order = await updateTracker(
      this.client(),
      this.args.order,
      this.args.tracker,
      { status: flags.status === 'CANCELLED' ? 'CANCELLED' : undefined, notifyPayer: flags['notify-payer'] },
      this.requestOptions(),
    );
    const tracker = trackersOf(order).find((candidate) => candidate.id === this.args.tracker);
    this.renderDetail([
      ['Order', order.id],
      ['Tracker', this.args.tracker],
      ['Status', tracker?.status, 'status'],
      ['Updated', formatDate(tracker?.update_time)],
    ]);
    return order;
  }
}
