import { Args } from '@oclif/core';
import { eventResourceId, getEvent, type WebhookEvent } from '../../../lib/api/webhooks.js';
import { BaseCommand } from '../../../lib/base-command.js';
import { formatDate } from '../../../lib/render/format.js';

export default class WebhooksEventsGet extends BaseCommand<typeof WebhooksEventsGet> {
  static override summary = 'Show one event';

  static override description = 'Shows an event as webhooks receive it; --json prints the exact envelope.';

  static override examples = ['<%= config.bin %> <%= command.id %> WH-58D329510W468432D', '<%= config.bin %> <%= command.id %> WH-58D329510W468432D --json'];

  static override args = { id: Args.string({ description: 'Event id (WH-...)', required: true }) };

  async run(): Promise<WebhookEvent> {
    const event = await getEvent(this.client(), this.args.id);
    this.renderDetail([
      ['ID', event.id],
      ['Time', formatDate(event.create_time)],
      ['Type', event.event_type],
      ['Resource type', event.resource_type],
      ['Resource', eventResourceId(event)],
      ['Summary', event.summary],
    ]);
    return event;
  }
}
