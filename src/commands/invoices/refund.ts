import { Flags } from '@oclif/core';
import { UsageError } from '../../lib/api/errors.js';
import { recordRefund, type RefundDetail } from '../../lib/api/invoices.js';
import { invoiceIdArg } from '../../lib/args.js';
import { BaseCommand } from '../../lib/base-command.js';
import { requestIdFlag, yesFlag } from '../../lib/flags.js';
import { RECORDED_METHODS, recordedAmount, recordedAmountFlags } from '../../lib/invoice-flags.js';

export default class InvoicesRefund extends BaseCommand<typeof InvoicesRefund> {
  static override summary = 'Record a refund for an invoice';

  static override description = `Records a refund of money paid on the invoice. Without --amount, everything paid and not
yet refunded is recorded as refunded. Refunds never exceed the payments (the service refuses with
INVALID_REFUND_AMOUNT, exit 5). The invoice becomes PARTIALLY_REFUNDED, or REFUNDED
(MARKED_AS_REFUNDED for refunds made outside the platform). Asks first on a terminal; scripts pass
--yes. --json prints the API's answer, {"refund_id": ...}.`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> INV2-8ZR7KDT2L5Q3RWX4YB2N --method CASH',
    '<%= config.bin %> <%= command.id %> INV2-8ZR7KDT2L5Q3RWX4YB2N --method BANK_TRANSFER --amount 12.50 --date 2025-03-02 --yes --json',
  ];

  static override args = { id: invoiceIdArg() };

  static override flags = {
    method: Flags.string({ description: 'How the money was returned', options: RECORDED_METHODS, required: true }),
    ...recordedAmountFlags,
    date: Flags.string({ description: 'Refund date, YYYY-MM-DD (default: today)' }),
    yes: yesFlag(),
    'request-id': requestIdFlag(),
  };

  async run(): Promise<{ refund_id: string }> {
    const f = this.flags;
    const client = this.client();
    const refund: RefundDetail = { method: f.method };
    if (f.date) {
      if (!/^\d{4}-\d{2}-\d{2}$/.test(f.date)) throw new UsageError(`--date must be YYYY-MM-DD; got "${f.date}"`);
      refund.refund_date = f.date;
    }
    const amount = await recordedAmount(client, this.args.id, f);
    if (amount) refund.amount = amount;
    const what = refund.amount ? `${refund.amount.value} ${refund.amount.currency_code}` : 'everything paid';
    await this.confirm(`Record a ${f.method} refund of ${what} on invoice ${this.args.id}?`);
    const result = await recordRefund(client, this.args.id, refund, this.requestOptions());
    this.renderDetail([
      ['Invoice', this.args.id],
      ['Refund id', result.refund_id],
    ]);
    return result;
  }
}
