import { cancelInvoice } from '../../lib/api/invoices.js';
import { invoiceIdArg } from '../../lib/args.js';
import { BaseCommand } from '../../lib/base-command.js';
import { notificationFlags, notificationFromFlags } from '../../lib/invoice-flags.js';
import { requestIdFlag, yesFlag } from '../../lib/flags.js';

export default class InvoicesCancel extends BaseCommand<typeof InvoicesCancel> {
  static override summary = 'Cancel a sent invoice';

  static override description = 'Cancels a SENT or UNPAID invoice and notifies the recipient (unless --no-email). Drafts are deleted instead; paid invoices cannot be cancelled. Asks first on a terminal; scripts pass --yes. The API answers 204 with no body, so --json prints {"id": ..., "cancelled": true}.';

  static override examples = [
    '<%= config.bin %> <%= command.id %> INV2-8ZR7KDT2L5Q3RWX4YB2N',
    '<%= config.bin %> <%= command.id %> INV2-8ZR7KDT2L5Q3RWX4YB2N --note "Sent by mistake" --yes --json',
  ];

  static override args = { id: invoiceIdArg() };

  static override flags = {
    ...notificationFlags(),
    yes: yesFlag(),
    'request-id': requestIdFlag(),
  };

  async run(): Promise<{ id: string; cancelled: true }> {
    const f = this.flags;
    const client = this.client();
    await this.confirm(`Cancel invoice ${this.args.id}?`);
    const notification = notificationFromFlags(f);
    await cancelInvoice(client, this.args.id, notification, this.requestOptions());
    this.renderDetail([
      ['ID', this.args.id],
      ['Cancelled', 'yes'],
    ]);
    return { id: this.args.id, cancelled: true };
  }
}
