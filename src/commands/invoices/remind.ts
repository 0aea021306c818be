import { remindInvoice } from '../../lib/api/invoices.js';
import { invoiceIdArg } from '../../lib/args.js';
import { BaseCommand } from '../../lib/base-command.js';
import { notificationFlags, notificationFromFlags } from '../../lib/invoice-flags.js';
import { requestIdFlag } from '../../lib/flags.js';

export default class InvoicesRemind extends BaseCommand<typeof InvoicesRemind> {
  static override summary = 'Remind the recipient of a sent, unpaid invoice';

  static override description = 'Records a reminder e-mail to the recipient (on a payctl server: in the outbox). Only SENT, UNPAID and PARTIALLY_PAID invoices can be reminded. The API answers 204 with no body, so --json prints {"id": ..., "reminded": true}.';

  static override examples = [
    '<%= config.bin %> <%= command.id %> INV2-8ZR7KDT2L5Q3RWX4YB2N',
    '<%= config.bin %> <%= command.id %> INV2-8ZR7KDT2L5Q3RWX4YB2N --note "A friendly reminder" --json',
  ];

  static override args = { id: invoiceIdArg() };

  static override flags = {
    ...notificationFlags(),
    'request-id': requestIdFlag(),
  };

  async run(): Promise<{ id: string; reminded: true }> {
    const f = this.flags;
    const client = this.client();
    const notification = notificationFromFlags(f);
    await remindInvoice(client, this.args.id, notification, this.requestOptions());
    this.renderDetail([
      ['ID', this.args.id],
      ['Reminded', 'yes'],
    ]);
    return { id: this.args.id, reminded: true };
  }
}
