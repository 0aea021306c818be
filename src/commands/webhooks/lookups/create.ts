import { createWebhookLookup, type WebhookLookup } from '../../../lib/api/webhook-lookups.js';
import { BaseCommand } from '../../../lib/base-command.js';
import { requestIdFlag } from '../../../lib/flags.js';

export default class WebhooksLookupsCreate extends BaseCommand<typeof WebhooksLookupsCreate> {
  static override summary = "Create the calling app's webhook lookup";

  static override description = `Records that the account's events are routed to the app whose credentials make the call (its
client id). An app has one lookup per account. On the local server every subscription of the account
already receives its events, so the lookup changes no delivery.`;

  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json'];

  static override flags = { 'request-id': requestIdFlag() };

  async run(): Promise<WebhookLookup> {
    const lookup = await createWebhookLookup(this.client(), this.requestOptions());
    this.renderDetail([
      ['ID', lookup.id],
      ['Client ID', lookup.client_id],
    ]);
    return lookup;
  }
}
