import { getOrder, trackersOf, type Order } from '../../lib/api/orders.js';
import { orderIdArg } from '../../lib/args.js';
import { BaseCommand } from '../../lib/base-command.js';
import { formatMoney } from '../../lib/render/format.js';

export default class OrdersGet extends BaseCommand<typeof OrdersGet> {
  static override summary = 'Show a checkout order with its shipment trackers';

  static override description = `Shows an order's status, intent and amount (each purchase unit's), and the trackers of its shipments (id, status). With
--json, the order exactly as the API answers it.`;

  static override examples = ['<%= config.bin %> <%= command.id %> 5O190127TN364715T', '<%= config.bin %> <%= command.id %> 5O190127TN364715T --json'];

  static override args = { order: orderIdArg() };

  async run(): Promise<Order> {
    const order = await getOrder(this.client(), this.args.order);
    const trackers = trackersOf(order);
    this.renderDetail([
      ['Order', order.id],
      ['Status', order.status, 'status'],
      ['Intent', order.intent],
      ['Amount', (order.purchase_units ?? []).map((unit) => formatMoney(unit.amount)).join(', ')],
      ['Trackers', trackers.length > 0 ? trackers.map((tracker) => `${tracker.id} ${tracker.status}`).join('\n') : undefined],
    ]);
    return order;
  }
}
