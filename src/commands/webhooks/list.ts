import { Flags } from '@oclif/core';
import { listWebhooks, type WebhookList } from '../../lib/api/webhooks.js';
import { BaseCommand } from '../../lib/base-command.js';

export default class WebhooksList extends BaseCommand<typeof WebhooksList> {
  static override summary = "List your app's webhooks";

  static override description = 'Lists the webhooks of the calling app, or with --account every webhook of the merchant account.';

  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --account --json'];

  static override flags = {
    account: Flags.boolean({ description: "Every webhook of the account, not only this app's" }),
  };

  async run(): Promise<WebhookList> {
    const list = await listWebhooks(this.client(), { anchorType: this.flags.account ? 'ACCOUNT' : 'APPLICATION' });
    this.renderTable(list.webhooks, [
      { header: 'ID', value: (hook) => hook.id },
      { header: 'URL', value: (hook) => hook.url },
      { header: 'Events', value: (hook) => hook.event_types.map((type) => type.name).join(',') },
    ]);
    return list;
  }
}
