import { deleteWebhook } from '../../lib/api/webhooks.js';
import { webhookIdArg } from '../../lib/args.js';
import { BaseCommand, type Deleted } from '../../lib/base-command.js';
import { requestIdFlag, yesFlag } from '../../lib/flags.js';

export default class WebhooksDelete extends BaseCommand<typeof WebhooksDelete> {
  static override summary = 'Delete a webhook';

  static override description = `Deletes a webhook. Deliveries still waiting for it are cancelled; its delivery history stays. Asks first on a terminal; scripts pass --yes. The API answers 204 with no body, so --json prints {"id": ..., "deleted": true}.`;

  static override examples = ['<%= config.bin %> <%= command.id %> 5GP028458E2496506', '<%= config.bin %> <%= command.id %> 5GP028458E2496506 --yes --json'];

  static override args = { id: webhookIdArg() };

  static override flags = { yes: yesFlag(), 'request-id': requestIdFlag() };

  async run(): Promise<Deleted> {
    return this.deleteAfterConfirm('webhook', this.args.id, deleteWebhook);
  }
}
