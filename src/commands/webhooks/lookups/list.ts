import { listWebhookLookups, type WebhookLookupList } from '../../../lib/api/webhook-lookups.js';
import { BaseCommand } from '../../../lib/base-command.js';

export default class WebhooksLookupsList extends BaseCommand<typeof WebhooksLookupsList> {
  static override summary = "List the account's webhook lookups";

  static override description = 'Lists the webhook lookups of the account: which apps (client ids) its events are routed to.';

  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json'];

  async run(): Promise<WebhookLookupList> {
    const list = await listWebhookLookups(this.client());
    this.renderTable(list.webhooks_lookups, [
      { header: 'ID', value: (lookup) => lookup.id },
      { header: 'Client id', value: (lookup) => lookup.client_id },
    ]);
    return list;
  }
}
