import { Flags } from '@oclif/core';
import { listDeliveries, type DeliveryList } from '../../lib/api/webhooks.js';
import { BaseCommand } from '../../lib/base-command.js';
import { givenOptions } from '../../lib/flags.js';
import { formatDate } from '../../lib/render/format.js';

export default class WebhooksDeliveries extends BaseCommand<typeof WebhooksDeliveries> {
  static override summary = 'Show delivery attempts (payctl server)';

  static override description = `Lists deliveries, newest first, from a payctl server's delivery log (GET /_payctl/deliveries): the event, the URL, the status (PENDING, DELIVERED, FAILED after 25 attempts, GONE after a 410, CANCELLED when the webhook was deleted), the attempts made and when the next one is due. --json includes every attempt (time, URL, status code or network error, duration).`;

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --event WH-58D329510W468432D --json',
    '<%= config.bin %> <%= command.id %> --status PENDING',
  ];

  static override flags = {
    event: Flags.string({ description: 'Only deliveries of this event id' }),
    'webhook-id': Flags.string({ description: 'Only deliveries to this webhook' }),
    status: Flags.string({ description: 'Only deliveries in this status', options: ['PENDING', 'DELIVERED', 'FAILED', 'GONE', 'CANCELLED'] }),
  };

  async run(): Promise<DeliveryList> {
    const { event, status } = this.flags;
    const list = await listDeliveries(this.client(), givenOptions({ eventId: event, webhookId: this.flags['webhook-id'], status }));
    this.renderTable(list.deliveries, [
      { header: 'Event', value: (d) => d.event_id, id: true },
      { header: 'Type', value: (d) => d.event_type },
      { header: 'Status', value: (d) => d.status, status: true },
      { header: 'Attempts', value: (d) => String(d.attempt_count) },
      { header: 'Last result', value: (d) => (d.last_status_code !== null ? String(d.last_status_code) : (d.last_error ?? '')) },
      { header: 'Next attempt', value: (d) => formatDate(d.next_attempt_time) },
      { header: 'URL', value: (d) => d.url ?? '' },
    ]);
    return list;
  }
}
