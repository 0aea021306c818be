import { Flags } from '@oclif/core';
import { UsageError } from '../../lib/api/errors.js';
import { createWebhook, expandEventTypes, listEventTypes, type Webhook } from '../../lib/api/webhooks.js';
import { BaseCommand } from '../../lib/base-command.js';
import { requestIdFlag } from '../../lib/flags.js';

export default class WebhooksCreate extends BaseCommand<typeof WebhooksCreate> {
  static override summary = 'Subscribe a URL to events';

  static override description = `Creates a webhook: the service POSTs each matching event, signed, to the URL joined with the event's receiver path (for example captures/{id} or authorizations/{id}/void). --events takes exact names, globs such as PAYMENT.CAPTURE.* (expanded against \`payctl webhooks event-types\`), or * for everything. An app can have at most 10 webhooks; link-local and cloud metadata addresses are refused.`;

  static override examples = [
    "<%= config.bin %> <%= command.id %> --url https://example.com/hooks --events 'PAYMENT.CAPTURE.*,CUSTOMER.DISPUTE.CREATED'",
    '<%= config.bin %> <%= command.id %> --url http://127.0.0.1:3000/webhooks --json',
  ];

  static override flags = {
    url: Flags.string({ description: 'Receiver address (http or https)', required: true }),
    events: Flags.string({ description: 'Comma-separated event types or globs; * for all', default: '*' }),
    'request-id': requestIdFlag(),
  };

  async run(): Promise<Webhook> {
    const client = this.client();
    const patterns = this.flags.events.split(',');
    const known = patterns.some((pattern) => pattern.includes('*') && pattern.trim() !== '*') ? (await listEventTypes(client)).event_types : [];
    let eventTypes: string[];
    try {
      eventTypes = expandEventTypes(patterns, known);
    } catch (error) {
      throw new UsageError(`--events: ${(error as Error).message}`);
    }
    if (eventTypes.length === 0) throw new UsageError('--events: give at least one event type, or *');
    const webhook = await createWebhook(client, { url: this.flags.url, eventTypes, ...this.requestOptions() });
    this.renderDetail([
      ['ID', webhook.id],
      ['URL', webhook.url],
      ['Events', webhook.event_types.map((type) => type.name).join(', ')],
    ]);
    return webhook;
  }
}
