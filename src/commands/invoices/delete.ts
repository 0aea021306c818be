import { deleteInvoice } from '../../lib/api/invoices.js';
import { invoiceIdArg } from '../../lib/args.js';
import { BaseCommand, type Deleted } from '../../lib/base-command.js';
import { requestIdFlag, yesFlag } from '../../lib/flags.js';

export default class InvoicesDelete extends BaseCommand<typeof InvoicesDelete> {
  static override summary = 'Delete a draft or scheduled invoice';

  static override description = `Deletes a DRAFT or SCHEDULED invoice; its number can then be used again. Sent invoices
are cancelled instead (\`payctl invoices cancel\`). Asks first on a terminal; scripts pass --yes. The
API answers 204 with no body, so --json prints {"id": ..., "deleted": true}.`;

  static override examples = ['<%= config.bin %> <%= command.id %> INV2-8ZR7KDT2L5Q3RWX4YB2N', '<%= config.bin %> <%= command.id %> INV2-8ZR7KDT2L5Q3RWX4YB2N --yes --json'];

  static override args = { id: invoiceIdArg() };

  static override flags = { yes: yesFlag(), 'request-id': requestIdFlag() };

  async run(): Promise<Deleted> {
    return this.deleteAfterConfirm('invoice', this.args.id, deleteInvoice);
  }
}
