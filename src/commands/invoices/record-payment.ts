import { Flags } from '@oclif/core';
import { recordPayment, type PaymentDetail } from '../../lib/api/invoices.js';
import { invoiceIdArg } from '../../lib/args.js';
import { BaseCommand } from '../../lib/base-command.js';
import { requestIdFlag, yesFlag } from '../../lib/flags.js';
import { RECORDED_METHODS, recordedAmount, recordedAmountFlags } from '../../lib/invoice-flags.js';

export default class InvoicesRecordPayment extends BaseCommand<typeof InvoicesRecordPayment> {
  static override summary = 'Record a payment received for an invoice';

  static override description = `Records a payment made outside the invoice's payment page (cash, cheque, transfer...).
Without --amount the whole amount due is recorded. The invoice becomes PARTIALLY_PAID, or
MARKED_AS_PAID (PAID for PLATFORM payments) when nothing is left due. Asks first on a terminal;
scripts pass --yes. --json prints the API's answer, {"payment_id": ...}.`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> INV2-8ZR7KDT2L5Q3RWX4YB2N --method CASH',
    '<%= config.bin %> <%= command.id %> INV2-8ZR7KDT2L5Q3RWX4YB2N --method CHECK --amount 40.00 --date 2025-03-01 --note "cheque 1021" --yes',
  ];

  static override args = { id: invoiceIdArg() };

  static override flags = {
    method: Flags.string({ description: 'How it was paid', options: RECORDED_METHODS, required: true }),
    ...recordedAmountFlags,
    date: Flags.string({ description: 'Payment date, YYYY-MM-DD (default: today)' }),
    note: Flags.string({ description: 'Note kept with the payment' }),
    yes: yesFlag(),
    'request-id': requestIdFlag(),
  };

  async run(): Promise<{ payment_id: string }> {
    const f = this.flags;
    const client = this.client();
    const payment: PaymentDetail = { method: f.method };
    const amount = await recordedAmount(client, this.args.id, f);
    if (amount) payment.amount = amount;
    if (f.date) payment.payment_date = f.date;
    if (f.note) payment.note = f.note;
    const what = payment.amount ? `${payment.amount.value} ${payment.amount.currency_code}` : 'the amount due';
    await this.confirm(`Record a ${f.method} payment of ${what} on invoice ${this.args.id}?`);
    const result = await recordPayment(client, this.args.id, payment, this.requestOptions());
    this.renderDetail([
      ['Invoice', this.args.id],
      ['Payment id', result.payment_id],
    ]);
    return result;
  }
}
