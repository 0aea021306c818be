import { Flags } from '@oclif/core';
import { UsageError } from '../../lib/api/errors.js';
import { updateOrder, type Order } from '../../lib/api/orders.js';
import { orderIdArg } from '../../lib/args.js';
import { BaseCommand } from '../../lib/base-command.js';
import { requestIdFlag } from '../../lib/flags.js';

export default class OrdersUpdate extends BaseCommand<typeof OrdersUpdate> {
  static override summary = "Set a purchase unit's invoice id, custom id or description before payment";

  static override description = `Changes an order that is CREATED or APPROVED (not yet authorized or captured): the invoice id,
custom id or description of one purchase unit ("default" unless --reference-id). Other fields, such as
the amount or shipping, can be patched with "payctl api PATCH /v2/checkout/orders/ID".`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> 5O190127TN364715T --invoice-id INV-2026-0042',
    '<%= config.bin %> <%= command.id %> 5O190127TN364715T --reference-id shoes --custom-id cart-981 --json',
  ];

  static override args = { order: orderIdArg() };

  static override flags = {
    'invoice-id': Flags.string({ description: 'Your invoice id for the purchase unit (1 to 127 characters)' }),
    'custom-id': Flags.string({ description: 'Your reference for reconciliation (1 to 127 characters)' }),
    description: Flags.string({ description: 'Description of the purchase (1 to 127 characters)' }),
    'reference-id': Flags.string({ description: 'The purchase unit to change', default: 'default' }),
    'request-id': requestIdFlag(),
  };

  async run(): Promise<Order> {
    const { flags } = this;
    if (flags['invoice-id'] === undefined && flags['custom-id'] === undefined && flags.description === undefined) {
      throw new UsageError('nothing to change: pass --invoice-id, --custom-id or --description');
    }
    const order = await updateOrder(
      this.client(),
      this.args.order,
      flags['reference-id'],
      { invoiceId: flags['invoice-id'], customId: flags['custom-id'], description: flags.description },
      this.requestOptions(),
    );
    const unit = order.purchase_units?.find((candidate) => (candidate.reference_id ?? 'default') === flags['reference-id']);
    this.renderDetail([
      ['Order', order.id],
      ['Status', order.status, 'status'],
      ['Unit', flags['reference-id']],
      ['Invoice ID', unit?.invoice_id as string | undefined],
      ['Custom ID', unit?.custom_id as string | undefined],
      ['Description', unit?.description as string | undefined],
    ]);
    return order;
  }
}
