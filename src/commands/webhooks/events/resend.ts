import { Args, Flags } from '@oclif/core';
import { resendEvent, type WebhookEvent } from '../../../lib/api/webhooks.js';
import { BaseCommand } from '../../../lib/base-command.js';
import { requestIdFlag } from '../../../lib/flags.js';

export default class WebhooksEventsResend extends BaseCommand<typeof WebhooksEventsResend> {
  static override summary = 'Send an event again';

  static override description = 'Queues the event again, with the same id and body, for the given webhooks, or for every webhook subscribed to its type. A webhook that still has a delivery of it waiting is skipped.';

  static override examples = [
    '<%= config.bin %> <%= command.id %> WH-58D329510W468432D',
    '<%= config.bin %> <%= command.id %> WH-58D329510W468432D --webhook-id 5GP028458E2496506 --json',
  ];

  static override args = { id: Args.string({ description: 'Event id (WH-...)', required: true }) };

  static override flags = {
    'webhook-id': Flags.string({ description: 'Webhook to send it to (repeatable)', multiple: true }),
    'request-id': requestIdFlag(),
  };

  async run(): Promise<WebhookEvent> {
    const webhookIds = this.flags['webhook-id'];
    const event = await resendEvent(this.client(), this.args.id, { ...(webhookIds ? { webhookIds } : {}), ...this.requestOptions() });
    this.renderDetail([
      ['Resent', event.id],
      ['Type', event.event_type],
    ]);
    this.notice('queued: see `payctl webhooks deliveries --event ' + event.id + '`');
    return event;
  }
}
