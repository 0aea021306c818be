import { Flags } from '@oclif/core';
import { authorizeOrder, createOrder } from '../../lib/api/orders.js';
import type { Authorization } from '../../lib/api/payments.js';
import { BaseCommand } from '../../lib/base-command.js';
import { amountFlag, currencyFlag, moneyFromFlags, requestIdFlag } from '../../lib/flags.js';
import { formatDate, formatMoney } from '../../lib/render/format.js';

export default class PaymentsAuthorize extends BaseCommand<typeof PaymentsAuthorize> {
  static override summary = 'Create an order paid by the sandbox card and authorize it, in one step';

  static override description = `For sandboxes and tests: creates a checkout order (intent AUTHORIZE) paid with the local server's test card, which approves it at once, then authorizes it. Prints the authorization; capture it with \`payctl payments capture\`. --json prints the authorization as the API returns it.`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> --amount 100.00 --currency USD',
    '<%= config.bin %> <%= command.id %> --amount 5000 --currency JPY --invoice-id ORDER-77 --json',
  ];

  static override flags = {
    amount: amountFlag({ required: true }),
    currency: currencyFlag({ required: true }),
    'invoice-id': Flags.string({ description: 'Your invoice number for the order (1-127 characters)' }),
    'request-id': requestIdFlag({ description: 'Base of the request ids (the order and its authorization get -order and -authorize)' }),
  };

  async run(): Promise<Authorization> {
    const client = this.client();
    const amount = moneyFromFlags(this.flags.amount, this.flags.currency);
    const base = this.flags['request-id'];
    const order = await createOrder(
      client,
      { intent: 'AUTHORIZE', amount, card: true, ...(this.flags['invoice-id'] ? { invoiceId: this.flags['invoice-id'] } : {}) },
      base ? { requestId: `${base}-order` } : {},
    );
    const authorized = await authorizeOrder(client, order.id, base ? { requestId: `${base}-authorize` } : {});
    const authorization = authorized.purchase_units?.[0]?.payments?.authorizations?.[0];
    if (!authorization) throw new Error(`order ${order.id} was authorized but the answer holds no authorization`);
    this.renderDetail([
      ['Authorization', authorization.id],
      ['Status', authorization.status, 'status'],
      ['Amount', formatMoney(authorization.amount)],
      ['Order', order.id],
      ['Expires', formatDate(authorization.expiration_time)],
    ]);
    return authorization;
  }
}
