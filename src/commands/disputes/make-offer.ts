import { Flags } from '@oclif/core';
import { getDispute, makeOffer, type Dispute } from '../../lib/api/disputes.js';
import { disputeIdArg } from '../../lib/args.js';
import { BaseCommand } from '../../lib/base-command.js';
import { returnAddressFlags, returnAddressFrom } from '../../lib/dispute-flags.js';
import { amountFlag, currencyFlag, moneyFromFlags, requestIdFlag } from '../../lib/flags.js';
import { actionRows } from '../../lib/render/disputes.js';

export default class DisputesMakeOffer extends BaseCommand<typeof DisputesMakeOffer> {
  static override summary = 'Offer the buyer a resolution (inquiry stage)';

  static override description = `Proposes a refund, a refund against the item's return, a refund with a replacement, or a
replacement alone. The buyer accepts or denies; an accepted refund is paid from the capture. The
currency defaults to the dispute's.`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> PP-D-4F2K9QWE7ZX1 --type REFUND --amount 15.00 --note "Half back for the delay"',
    '<%= config.bin %> <%= command.id %> PP-D-4F2K9QWE7ZX1 --type REPLACEMENT_WITHOUT_REFUND --note "A new one ships today"',
    '<%= config.bin %> <%= command.id %> PP-D-4F2K9QWE7ZX1 --type REFUND_WITH_RETURN --amount 30.00 --note "Send it back" --return-country US --return-line1 "1 Main St" --return-city "San Jose" --return-postal-code 95131',
  ];

  static override args = { id: disputeIdArg() };

  static override flags = {
    type: Flags.string({ description: 'Offer type', options: ['REFUND', 'REFUND_WITH_RETURN', 'REFUND_WITH_REPLACEMENT', 'REPLACEMENT_WITHOUT_REFUND'], required: true }),
    amount: amountFlag({ description: 'Amount offered (not for REPLACEMENT_WITHOUT_REFUND)' }),
    currency: currencyFlag({ description: "Currency of --amount (default: the dispute's)" }),
    note: Flags.string({ description: 'Note to the buyer (1 to 2000 characters)', required: true }),
    ...returnAddressFlags,
    'request-id': requestIdFlag(),
  };

  async run(): Promise<Dispute> {
    const client = this.client();
    const body: Record<string, unknown> = { note: this.flags.note, offer_type: this.flags.type };
    if (this.flags.amount) {
      const currency = this.flags.currency ?? (await getDispute(client, this.args.id)).dispute_amount?.currency_code ?? 'USD';
      body.offer_amount = moneyFromFlags(this.flags.amount, currency);
    }
    const address = returnAddressFrom(this.flags);
    if (address) body.return_shipping_address = address;
    const dispute = await makeOffer(client, this.args.id, body, this.requestOptions());
    this.renderDetail(actionRows(dispute, await this.clock()));
    return dispute;
  }
}
