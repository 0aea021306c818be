import { Args } from '@oclif/core';
import { deleteWebhookLookup } from '../../../lib/api/webhook-lookups.js';
import { BaseCommand, type Deleted } from '../../../lib/base-command.js';
import { requestIdFlag, yesFlag } from '../../../lib/flags.js';

export default class WebhooksLookupsDelete extends BaseCommand<typeof WebhooksLookupsDelete> {
  static override summary = 'Delete a webhook lookup';

  static override description = `Deletes a webhook lookup of the account. Asks first on a terminal; scripts pass --yes. The API
answers 204 with no body, so --json prints {"id": ..., "deleted": true}.`;

  static override examples = ['<%= config.bin %> <%= command.id %> 0EH40505U7160970P', '<%= config.bin %> <%= command.id %> 0EH40505U7160970P --yes --json'];

  static override args = { id: Args.string({ description: 'Webhook lookup id', required: true }) };

  static override flags = { yes: yesFlag(), 'request-id': requestIdFlag() };

  async run(): Promise<Deleted> {
    return this.deleteAfterConfirm('webhook lookup', this.args.id, deleteWebhookLookup);
  }
}
