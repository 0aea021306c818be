import { Flags } from '@oclif/core';
import { acceptClaim, getDispute, type Dispute } from '../../lib/api/disputes.js';
import { disputeIdArg } from '../../lib/args.js';
import { BaseCommand } from '../../lib/base-command.js';
import { filesFrom, returnAddressFlags, returnAddressFrom } from '../../lib/dispute-flags.js';
import { amountFlag, currencyFlag, moneyFromFlags, requestIdFlag, yesFlag } from '../../lib/flags.js';
import { formatMoney } from '../../lib/render/format.js';
import { actionRows } from '../../lib/render/disputes.js';

export default class DisputesAcceptClaim extends BaseCommand<typeof DisputesAcceptClaim> {
  static override summary = "Accept the buyer's claim: refund and close the dispute";

  static override description = `Accepts liability. REFUND (the default) refunds the disputed amount at once and closes the dispute in
the buyer's favour; PARTIAL_REFUND refunds --amount; REFUND_WITH_RETURN waits for the buyer to send
the item back to the --return-* address (not-as-described disputes only). Moves money, so it asks
first on a terminal; pass --yes to skip (required without a terminal).`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> PP-D-4F2K9QWE7ZX1 --note "Lost in the mail" --yes',
    '<%= config.bin %> <%= command.id %> PP-D-4F2K9QWE7ZX1 --type PARTIAL_REFUND --amount 12.50 --note "Partial credit" --yes',
  ];

  static override args = { id: disputeIdArg() };

  static override flags = {
    note: Flags.string({ description: 'Note for the service (1 to 2000 characters)', required: true }),
    type: Flags.string({ description: 'How to settle', options: ['REFUND', 'PARTIAL_REFUND', 'REFUND_WITH_RETURN'] }),
    amount: amountFlag({ description: 'Refund amount (PARTIAL_REFUND only)' }),
    currency: currencyFlag({ description: "Currency of --amount (default: the dispute's)" }),
    reason: Flags.string({ description: 'Why you accept', options: ['DID_NOT_SHIP_ITEM', 'TOO_TIME_CONSUMING', 'LOST_IN_MAIL', 'NOT_ABLE_TO_WIN', 'COMPANY_POLICY', 'REASON_NOT_SET'] }),
    file: Flags.string({ description: 'A supporting document (repeatable)', multiple: true }),
    ...returnAddressFlags,
    yes: yesFlag(),
    'request-id': requestIdFlag(),
  };

  async run(): Promise<Dispute> {
    const client = this.client();
    const files = await filesFrom(this.flags);
    const body: Record<string, unknown> = { note: this.flags.note };
    if (this.flags.type) body.accept_claim_type = this.flags.type;
    if (this.flags.reason) body.accept_claim_reason = this.flags.reason;
    const address = returnAddressFrom(this.flags);
    if (address) body.return_shipping_address = address;
    let what = 'the disputed amount';
    if (this.flags.amount) {
      const currency = this.flags.currency ?? (await getDispute(client, this.args.id)).dispute_amount?.currency_code ?? 'USD';
      body.refund_amount = moneyFromFlags(this.flags.amount, currency);
      what = formatMoney(body.refund_amount as { currency_code: string; value: string });
    }
    await this.confirm(`Accept the claim on ${this.args.id} and refund ${what} to the buyer?`);
    const dispute = await acceptClaim(client, this.args.id, body, {
      files,
      ...this.requestOptions(),
    });
    this.renderDetail(actionRows(dispute, await this.clock()));
    return dispute;
  }
}
