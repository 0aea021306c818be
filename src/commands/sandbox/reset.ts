import { Flags } from '@oclif/core';
import { resetSandbox, type ResetResult } from '../../lib/api/sandbox.js';
import { BaseCommand } from '../../lib/base-command.js';
import { adminKeyFlag, requestIdFlag, yesFlag } from '../../lib/flags.js';

export default class SandboxReset extends BaseCommand<typeof SandboxReset> {
  static override summary = "Delete your sandbox account's data, or with --all every account's";

  static override description = `Deletes everything the calling account created on a payctl server (payments, invoices, disputes, payouts, webhooks, events) and sets its clock back. With --all and the admin key, every account is reset. Asks first on a terminal; scripts must pass --yes.`;

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --yes',
    'PAYCTL_ADMIN_KEY=... <%= config.bin %> <%= command.id %> --all --yes --json',
  ];

  static override flags = {
    all: Flags.boolean({ description: 'Reset every account (needs the admin key)' }),
    'admin-key': adminKeyFlag('with --all'),
    yes: yesFlag(),
    'request-id': requestIdFlag(),
  };

  async run(): Promise<ResetResult> {
    const all = this.flags.all;
    const adminKey = all
      ? await this.requireAdminKey()
      : undefined;
    const client = this.client({ credentials: !all });
    await this.confirm(all ? `Delete the data of EVERY account on ${client.baseUrl}?` : `Delete all data of your account on ${client.baseUrl}?`);
    const result = await resetSandbox(client, { ...(adminKey ? { adminKey } : {}), ...this.requestOptions() });
    this.renderDetail([['Reset', result.reset]]);
    return result;
  }
}
