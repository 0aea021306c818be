import { Flags } from '@oclif/core';
import { UsageError } from '../../lib/api/errors.js';
import { expandEventTypes, listEventTypes, updateWebhook, type Webhook } from '../../lib/api/webhooks.js';
import { webhookIdArg } from '../../lib/args.js';
import { BaseCommand } from '../../lib/base-command.js';
import { requestIdFlag } from '../../lib/flags.js';

export default class WebhooksUpdate extends BaseCommand<typeof WebhooksUpdate> {
  static override summary = "Change a webhook's URL or event types";

  static override description = 'Replaces the receiver address and/or the whole list of event types (globs are expanded as in `webhooks create`).';

  static override examples = [
    '<%= config.bin %> <%= command.id %> 5GP028458E2496506 --url https://example.com/new',
    "<%= config.bin %> <%= command.id %> 5GP028458E2496506 --events 'PAYMENT.*' --json",
  ];

  static override args = { id: webhookIdArg() };

  static override flags = {
    url: Flags.string({ description: 'New receiver address' }),
    events: Flags.string({ description: 'New comma-separated event types or globs; * for all' }),
    'request-id': requestIdFlag(),
  };

  async run(): Promise<Webhook> {
    const { url, events } = this.flags;
    if (url === undefined && events === undefined) throw new UsageError('nothing to change: pass --url and/or --events');
    const client = this.client();
    let eventTypes: string[] | undefined;
    if (events !== undefined) {
      const patterns = events.split(',');
      const known = patterns.some((pattern) => pattern.includes('*') && pattern.trim() !== '*') ? (await listEventTypes(client)).event_types : [];
      try {
        eventTypes = expandEventTypes(patterns, known);
      } catch (error) {
        throw new UsageError(`--events: ${(error as Error).message}`);
      }
    }
    const webhook = await updateWebhook(client, this.args.id, {
      ...(url !== undefined ? { url } : {}),
      ...(eventTypes !== undefined ? { eventTypes } : {}),
      ...this.requestOptions(),
    });
    this.renderDetail([
      ['ID', webhook.id],
      ['URL', webhook.url],
      ['Events', webhook.event_types.map((type) => type.name).join(', ')],
    ]);
    return webhook;
  }
}
