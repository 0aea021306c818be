import { approveOrder, type Order } from '../../lib/api/orders.js';
import { orderIdArg } from '../../lib/args.js';
import { BaseCommand } from '../../lib/base-command.js';
import { requestIdFlag } from '../../lib/flags.js';
import { formatMoney } from '../../lib/render/format.js';

export default class SandboxApprove extends BaseCommand<typeof SandboxApprove> {
  static override summary = 'Approve a checkout order as its payer would';

  static override description = `On a payctl server, an order without a card waits for the payer to approve it at its approve link. This does the same from the terminal, for your own orders; afterwards the order can be authorized or captured. Approving an approved order changes nothing.`;

  static override examples = ['<%= config.bin %> <%= command.id %> 5O190127TN364715T', '<%= config.bin %> <%= command.id %> 5O190127TN364715T --json'];

  static override args = {
    order: orderIdArg(),
  };

  static override flags = {
    'request-id': requestIdFlag(),
  };

  async run(): Promise<Order> {
    const order = await approveOrder(this.client(), this.args.order, this.requestOptions());
    this.renderDetail([
      ['Order', order.id],
      ['Status', order.status, 'status'],
      ['Intent', order.intent],
      ['Amount', formatMoney(order.purchase_units?.[0]?.amount)],
    ]);
    return order;
  }
}
