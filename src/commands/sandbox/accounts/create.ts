import { Flags } from '@oclif/core';
import { createSandboxAccount, type SandboxAccount } from '../../../lib/api/sandbox.js';
import { BaseCommand } from '../../../lib/base-command.js';
import { adminKeyFlag, givenOptions, requestIdFlag } from '../../../lib/flags.js';

export default class SandboxAccountsCreate extends BaseCommand<typeof SandboxAccountsCreate> {
  static override summary = 'Create a merchant account with its own client credentials';

  static override description = `Creates a merchant account on a payctl server (needs the server's admin key) and prints its payer id, email, client id and client secret. The secret is printed this once because it was just created; store it (for example with \`payctl auth login --profile NAME\`).`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> --email shop@example.com --admin-key "$PAYCTL_ADMIN_KEY"',
    'PAYCTL_ADMIN_KEY=... <%= config.bin %> <%= command.id %> --json',
  ];

  static override flags = {
    email: Flags.string({ description: 'Email of the new merchant (generated when omitted)' }),
    'admin-key': adminKeyFlag(),
    'request-id': requestIdFlag(),
  };

  async run(): Promise<SandboxAccount> {
    const adminKey = await this.requireAdminKey();
    const account = await createSandboxAccount(this.client({ credentials: false }), {
      adminKey,
      ...givenOptions({ email: this.flags.email }),
      ...this.requestOptions(),
    });
    this.renderDetail([
      ['Payer id', account.payer_id],
      ['Email', account.email],
      ['Client id', account.client_id],
      ['Client secret', account.client_secret],
    ]);
    this.notice('The client secret is shown only now, because the account was just created: store it somewhere safe.');
    return account;
  }
}
