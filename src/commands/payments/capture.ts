import { Flags } from '@oclif/core';
import { captureAuthorization, getAuthorization, type Capture, type CaptureRequest } from '../../lib/api/payments.js';
import { authorizationIdArg } from '../../lib/args.js';
import { BaseCommand } from '../../lib/base-command.js';
import { amountFlag, currencyFlag, moneyFromFlags, requestIdFlag, yesFlag } from '../../lib/flags.js';
import { formatDate, formatMoney } from '../../lib/render/format.js';
import { captureRows } from '../../lib/render/payments.js';

export default class PaymentsCapture extends BaseCommand<typeof PaymentsCapture> {
  static override summary = 'Capture all or part of an authorized payment';

  static override description = `Without --amount, captures what is left of the authorization. With --amount (in the authorization's currency unless --currency is given), captures that part; several partial captures may follow until the authorization is fully captured, --final closes it, or the over-capture limit is reached. Asks for confirmation on a terminal unless --yes.`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> 7XJ2ABCDEF1234567 --yes',
    '<%= config.bin %> <%= command.id %> 7XJ2ABCDEF1234567 --amount 10.00 --final --invoice-id INV-1001 --yes --json',
    '<%= config.bin %> <%= command.id %> 7XJ2ABCDEF1234567 --amount 5 --currency USD --note "First shipment" --request-id cap-1001-a --yes',
  ];

  static override args = {
    authorization: authorizationIdArg(),
  };

  static override flags = {
    amount: amountFlag(),
    currency: currencyFlag({ dependsOn: ['amount'] }),
    final: Flags.boolean({ description: 'No further captures are intended: close the authorization' }),
    'invoice-id': Flags.string({ description: 'Your invoice number for this capture (1-127 characters)' }),
    note: Flags.string({ description: 'Note to the payer (1-255 characters)' }),
    'soft-descriptor': Flags.string({ description: "Text on the payer's statement (up to 22 characters)" }),
    'request-id': requestIdFlag(),
    yes: yesFlag(),
  };

  async run(): Promise<Capture> {
    const client = this.client();
    const { flags } = this;
    const body: CaptureRequest = {};
    if (flags.amount) {
      const currency = flags.currency ?? (await getAuthorization(client, this.args.authorization)).amount?.currency_code ?? 'USD';
      body.amount = moneyFromFlags(flags.amount, currency);
    }
    if (flags.final) body.final_capture = true;
    if (flags['invoice-id']) body.invoice_id = flags['invoice-id'];
    if (flags.note) body.note_to_payer = flags.note;
    if (flags['soft-descriptor']) body.soft_descriptor = flags['soft-descriptor'];
    const what = body.amount ? formatMoney(body.amount) : 'the rest';
    await this.confirm(`Capture ${what} of authorization ${this.args.authorization}?`);
    const capture = await captureAuthorization(client, this.args.authorization, body, this.requestOptions());
    this.renderDetail([
      ...captureRows(capture),
      ['Final capture', capture.final_capture ? 'yes' : 'no'],
      ['Invoice id', capture.invoice_id],
      ['Created', formatDate(capture.create_time)],
    ]);
    return capture;
  }
}
