import { authStatus, type AuthStatus } from '../../lib/api/auth.js';
import { BaseCommand } from '../../lib/base-command.js';
import { formatDate } from '../../lib/render/format.js';

export default class AuthStatusCommand extends BaseCommand<typeof AuthStatusCommand> {
  static override summary = 'Show which credentials and merchant commands will use';

  static override description = `Resolves the credentials (flags, then environment, then profile), gets an access token if none is cached, and shows the profile, base URL, client id, app id, token expiry and the merchant account behind the credentials (unknown when the server does not say).`;

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --profile staging',
    '<%= config.bin %> <%= command.id %> --json | jq -r .merchant.payer_id',
  ];

  async run(): Promise<AuthStatus> {
    const status = await authStatus(this.client(), this.credentials().profile);
    this.renderDetail([
      ['Profile', status.profile],
      ['Base URL', status.base_url],
      ['Client id', status.client_id],
      ['App id', status.app_id],
      ['Merchant', status.merchant ? status.merchant.payer_id : 'unknown'],
      ['Email', status.merchant?.email],
      ['Token expires', formatDate(status.token_expires_at)],
    ]);
    return status;
  }
}
