import { Args } from '@oclif/core';
import { listEventTypes, webhookEventTypes, type EventTypeList } from '../../lib/api/webhooks.js';
import { BaseCommand } from '../../lib/base-command.js';

export default class WebhooksEventTypes extends BaseCommand<typeof WebhooksEventTypes> {
  static override summary = 'List the event types you can subscribe to, or those of one webhook';

  static override description = 'Without an argument, every event type the service sends, with a description. With a webhook id, the types that webhook is subscribed to.';

  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> 5GP028458E2496506 --json'];

  static override args = { id: Args.string({ description: 'Webhook id', required: false }) };

  async run(): Promise<EventTypeList> {
    const client = this.client();
    const list = this.args.id ? await webhookEventTypes(client, this.args.id) : await listEventTypes(client);
    this.renderTable(list.event_types, [
      { header: 'Event type', value: (type) => type.name },
      { header: 'Description', value: (type) => type.description },
    ]);
    return list;
  }
}
