import { Args } from '@oclif/core';
import { getWebhook, type Webhook } from '../../lib/api/webhooks.js';
import { BaseCommand } from '../../lib/base-command.js';

export default class WebhooksGet extends BaseCommand<typeof WebhooksGet> {
  static override summary = 'Show a webhook';

  static override description = 'Shows one webhook: its receiver address and the event types it is subscribed to.';

  static override examples = ['<%= config.bin %> <%= command.id %> 5GP028458E2496506', '<%= config.bin %> <%= command.id %> 5GP028458E2496506 --json'];

  static override args = { id: Args.string({ description: 'Webhook id', required: true }) };

  async run(): Promise<Webhook> {
    const webhook = await getWebhook(this.client(), this.args.id);
    this.renderDetail([
      ['ID', webhook.id],
      ['URL', webhook.url],
      ['Events', webhook.event_types.map((type) => type.name).join(', ')],
    ]);
    return webhook;
  }
}
