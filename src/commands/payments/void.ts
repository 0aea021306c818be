import { voidAuthorization, type Authorization } from '../../lib/api/payments.js';
import { authorizationIdArg } from '../../lib/args.js';
import { BaseCommand } from '../../lib/base-command.js';
import { requestIdFlag, yesFlag } from '../../lib/flags.js';
import { formatDate, formatMoney } from '../../lib/render/format.js';

export default class PaymentsVoid extends BaseCommand<typeof PaymentsVoid> {
  static override summary = 'Void an authorized payment';

  static override description = `Releases what is left of an authorization: nothing more can be captured. Voiding an authorization that was reauthorized voids its reauthorization too; a reauthorization itself cannot be voided. Asks for confirmation on a terminal unless --yes.`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> 7XJ2ABCDEF1234567 --yes',
    '<%= config.bin %> <%= command.id %> 7XJ2ABCDEF1234567 --yes --json',
  ];

  static override args = {
    authorization: authorizationIdArg(),
  };

  static override flags = {
    'request-id': requestIdFlag(),
    yes: yesFlag(),
  };

  async run(): Promise<Authorization> {
    await this.confirm(`Void authorization ${this.args.authorization}?`);
    const authorization = await voidAuthorization(this.client(), this.args.authorization, this.requestOptions());
    this.renderDetail([
      ['Authorization', authorization.id],
      ['Status', authorization.status, 'status'],
      ['Amount', formatMoney(authorization.amount)],
      ['Updated', formatDate(authorization.update_time)],
    ]);
    return authorization;
  }
}
