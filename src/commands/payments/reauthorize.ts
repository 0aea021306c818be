import { getAuthorization, reauthorizeAuthorization, type Authorization } from '../../lib/api/payments.js';
import { authorizationIdArg } from '../../lib/args.js';
import { BaseCommand } from '../../lib/base-command.js';
import { amountFlag, currencyFlag, moneyFromFlags, requestIdFlag } from '../../lib/flags.js';
import { formatDate, formatMoney } from '../../lib/render/format.js';

export default class PaymentsReauthorize extends BaseCommand<typeof PaymentsReauthorize> {
  static override summary = 'Reauthorize an authorization after its 3-day honour period';

  static override description = `Creates a new authorization for the amount (up to 115% of the original, in its currency) that can be captured until the original authorization expires (29 days after it was created). Allowed once per authorization, from day 3 to day 29.`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> 7XJ2ABCDEF1234567 --amount 100.00',
    '<%= config.bin %> <%= command.id %> 7XJ2ABCDEF1234567 --amount 110 --currency USD --json',
  ];

  static override args = {
    authorization: authorizationIdArg(),
  };

  static override flags = {
    amount: amountFlag({ required: true }),
    currency: currencyFlag(),
    'request-id': requestIdFlag(),
  };

  async run(): Promise<Authorization> {
    const client = this.client();
    const currency = this.flags.currency ?? (await getAuthorization(client, this.args.authorization)).amount?.currency_code ?? 'USD';
    const amount = moneyFromFlags(this.flags.amount, currency);
    const renewed = await reauthorizeAuthorization(client, this.args.authorization, amount, this.requestOptions());
    this.renderDetail([
      ['Authorization', renewed.id],
      ['Reauthorizes', renewed.supplementary_data?.related_ids?.authorization_id],
      ['Status', renewed.status, 'status'],
      ['Amount', formatMoney(renewed.amount)],
      ['Expires', formatDate(renewed.expiration_time)],
    ]);
    return renewed;
  }
}
