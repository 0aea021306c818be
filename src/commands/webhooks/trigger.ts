import { Args, Flags } from '@oclif/core';
import { UsageError } from '../../lib/api/errors.js';
import {
  TRIGGERABLE_EVENT_TYPES,
  eventResourceId,
  listWebhooks,
  simulateEvent,
  triggerEvent,
  type WebhookEvent,
} from '../../lib/api/webhooks.js';
import { BaseCommand } from '../../lib/base-command.js';
import { requestIdFlag } from '../../lib/flags.js';
import { formatDate } from '../../lib/render/format.js';

export default class WebhooksTrigger extends BaseCommand<typeof WebhooksTrigger> {
  static override summary = 'Make the service emit an event';

  static override description = `Runs the real API flow that produces the event, so every webhook subscribed to it gets a genuine delivery: for PAYMENT.CAPTURE.COMPLETED an order, its authorization and a capture (10.00 USD, sandbox card); DECLINED adds the INSTRUMENT_DECLINED mock header; PENDING sets the account's identity check to pending for the capture and back; REFUNDED refunds 4.00; AUTHORIZATION.VOIDED voids; CHECKOUT.ORDER.* create (and capture) an order. Prints the event the flow recorded.

With --simulate it asks for a sample event instead (any type), sent to one webhook (--webhook-id) or URL (--url); without either, to your only webhook subscribed to the type. Simulated events are not in the event history.

Real flows: ${TRIGGERABLE_EVENT_TYPES.join(', ')}.`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> PAYMENT.CAPTURE.COMPLETED',
    '<%= config.bin %> <%= command.id %> PAYMENT.CAPTURE.REFUNDED --json',
    '<%= config.bin %> <%= command.id %> CUSTOMER.DISPUTE.CREATED --simulate --url http://127.0.0.1:3000/hooks',
  ];

  static override args = { 'event-type': Args.string({ description: 'Event type, e.g. PAYMENT.CAPTURE.COMPLETED', required: true }) };

  static override flags = {
    simulate: Flags.boolean({ description: 'Send a simulated sample event instead of running the real flow' }),
    'webhook-id': Flags.string({ description: 'With --simulate: the webhook to send it to' }),
    url: Flags.string({ description: 'With --simulate: the URL to send it to (signed with webhook id WEBHOOK_ID)' }),
    'request-id': requestIdFlag(),
  };

  async run(): Promise<WebhookEvent> {
    const eventType = this.args['event-type'];
    const client = this.client();
    let event: WebhookEvent;
    if (this.flags.simulate) {
      event = await simulateEvent(client, { eventType, ...(await this.target(eventType)), ...this.requestOptions() });
    } else {
      if (!TRIGGERABLE_EVENT_TYPES.includes(eventType)) {
        throw new UsageError(`no real flow produces ${eventType} here; pass --simulate for a sample event (real flows: ${TRIGGERABLE_EVENT_TYPES.join(', ')})`);
      }
      event = await triggerEvent(client, eventType);
    }
    this.renderDetail([
      ['Event', event.id],
      ['Type', event.event_type],
      ['Resource', eventResourceId(event)],
      ['Time', `${formatDate(event.create_time)} (account clock)`],
      ['Simulated', this.flags.simulate ? 'yes' : 'no'],
    ]);
    return event;
  }

  private async target(eventType: string): Promise<{ webhookId?: string; url?: string }> {
    const webhookId = this.flags['webhook-id'];
    const { url } = this.flags;
    if (webhookId !== undefined) return { webhookId };
    if (url !== undefined) return { url };
    const { webhooks } = await listWebhooks(this.client());
    const subscribed = webhooks.filter((hook) => hook.event_types.some((type) => type.name === '*' || type.name === eventType));
    const only = subscribed[0];
    if (subscribed.length !== 1 || !only) {
      throw new UsageError(
        `--simulate needs --webhook-id or --url (${subscribed.length === 0 ? 'no webhook is' : `${subscribed.length} webhooks are`} subscribed to ${eventType})`,
      );
    }
    return { webhookId: only.id };
  }
}
