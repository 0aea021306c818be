import { Args } from '@oclif/core';
import { getWebhookLookup, type WebhookLookup } from '../../../lib/api/webhook-lookups.js';
import { BaseCommand } from '../../../lib/base-command.js';

export default class WebhooksLookupsGet extends BaseCommand<typeof WebhooksLookupsGet> {
  static override summary = 'Show a webhook lookup';

  static override description = 'Shows one webhook lookup of the account: its id and the client id of its app.';

  static override examples = ['<%= config.bin %> <%= command.id %> 0EH40505U7160970P', '<%= config.bin %> <%= command.id %> 0EH40505U7160970P --json'];

  static override args = { id: Args.string({ description: 'Webhook lookup id', required: true }) };

  async run(): Promise<WebhookLookup> {
    const lookup = await getWebhookLookup(this.client(), this.args.id);
    this.renderDetail([
      ['ID', lookup.id],
      ['Client ID', lookup.client_id],
    ]);
    return lookup;
  }
}
