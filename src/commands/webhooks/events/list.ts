import { Flags } from '@oclif/core';
import { eventResourceId, listEvents, type WebhookEventList } from '../../../lib/api/webhooks.js';
import { BaseCommand } from '../../../lib/base-command.js';
import { givenOptions, pageSizeFlag } from '../../../lib/flags.js';
import { formatDate } from '../../../lib/render/format.js';

export default class WebhooksEventsList extends BaseCommand<typeof WebhooksEventsList> {
  static override summary = 'List events, newest first';

  static override description = 'Lists the events of your account (what webhooks deliver), newest first, with filters. When more events match, the next page token is printed on stderr (and is in the `next` link under --json).';

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --event-type PAYMENT.CAPTURE.COMPLETED --page-size 50',
    '<%= config.bin %> <%= command.id %> --transaction-id 7TK53561YB803214S --json',
  ];

  static override flags = {
    'event-type': Flags.string({ description: 'Only events of this type' }),
    'transaction-id': Flags.string({ description: 'Only events about this resource (capture, authorization, refund, ...)' }),
    'start-time': Flags.string({ description: 'Created at or after (RFC 3339)' }),
    'end-time': Flags.string({ description: 'Created at or before (RFC 3339)' }),
    'page-size': pageSizeFlag({ max: 300, items: 'Events' }),
    'page-token': Flags.string({ description: 'Token of the next page, from a previous list' }),
  };

  async run(): Promise<WebhookEventList> {
    const f = this.flags;
    const list = await listEvents(
      this.client(),
      givenOptions({
        eventType: f['event-type'],
        transactionId: f['transaction-id'],
        startTime: f['start-time'],
        endTime: f['end-time'],
        pageSize: f['page-size'],
        pageToken: f['page-token'],
      }),
    );
    this.renderTable(list.events, [
      { header: 'ID', value: (event) => event.id },
      { header: 'Time', value: (event) => formatDate(event.create_time) },
      { header: 'Type', value: (event) => event.event_type },
      { header: 'Resource', value: (event) => eventResourceId(event), id: true },
      { header: 'Summary', value: (event) => event.summary },
    ]);
    const next = list.links?.find((link) => link.rel === 'next');
    const token = next ? new URL(next.href).searchParams.get('next_page_token') : null;
    if (token && !this.jsonEnabled()) this.notice(`more events: --page-token ${token}`);
    return list;
  }
}
