import { sendInvoice } from '../../lib/api/invoices.js';
import { invoiceIdArg } from '../../lib/args.js';
import { BaseCommand } from '../../lib/base-command.js';
import { notificationFlags, notificationFromFlags } from '../../lib/invoice-flags.js';
import { requestIdFlag } from '../../lib/flags.js';

export default class InvoicesSend extends BaseCommand<typeof InvoicesSend> {
  static override summary = 'Send a draft invoice to its recipients (or schedule it for its date)';

  static override description = `Sends the invoice now, or, when its invoice date is in the future, schedules it: the
server sends it when the account's clock reaches that date. On a payctl server no e-mail leaves the
machine: the messages are recorded in the outbox (GET /_payctl/outbox). --json prints the API's
answer (the payer's link, or the links of a scheduled invoice).`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> INV2-8ZR7KDT2L5Q3RWX4YB2N',
    '<%= config.bin %> <%= command.id %> INV2-8ZR7KDT2L5Q3RWX4YB2N --subject "Your invoice" --cc boss@example.com --copy-me',
  ];

  static override args = { id: invoiceIdArg() };

  static override flags = {
    ...notificationFlags('Do not e-mail the recipient (share the link yourself)'),
    'request-id': requestIdFlag(),
  };

  async run(): Promise<unknown> {
    const f = this.flags;
    const notification = notificationFromFlags(f);
    const result = await sendInvoice(this.client(), this.args.id, notification, this.requestOptions());
    const scheduled = result.status === 202;
    this.renderDetail([
      ['ID', this.args.id],
      ['Result', scheduled ? 'scheduled for its invoice date' : 'sent'],
      ...('href' in result.body && typeof result.body.href === 'string' ? [['Payer link', result.body.href] as const] : []),
    ]);
    return result.body;
  }
}
