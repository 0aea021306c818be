import { Args, Flags } from '@oclif/core';
import { openSandboxDispute, type Dispute } from '../../../lib/api/disputes.js';
import { BaseCommand } from '../../../lib/base-command.js';
import { DISPUTE_REASONS } from '../../../lib/disputes.js';
import { amountFlag, currencyFlag, moneyFromFlags, requestIdFlag } from '../../../lib/flags.js';
import { actionRows } from '../../../lib/render/disputes.js';

export default class SandboxDisputeOpen extends BaseCommand<typeof SandboxDisputeOpen> {
  static override summary = 'Open a dispute on one of your captures, as its buyer would (local server)';

  static override description = `Uses the control plane (POST /_payctl/disputes) to open an inquiry against a COMPLETED or
PARTIALLY_REFUNDED capture of your account. The dispute waits for your answer for 10 days on the
account's clock. Without --amount, what is left of the capture is disputed.`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> 3C679366HH908993F --reason MERCHANDISE_OR_SERVICE_NOT_RECEIVED',
    '<%= config.bin %> <%= command.id %> 3C679366HH908993F --reason INCORRECT_AMOUNT --amount 5.00 --currency USD --message "Charged twice the price" --json',
  ];

  static override args = { capture_id: Args.string({ description: 'Capture id (the disputed transaction)', required: true }) };

  static override flags = {
    reason: Flags.string({ description: "The buyer's reason", options: [...DISPUTE_REASONS], required: true }),
    amount: amountFlag({ description: 'Disputed amount (default: what is left of the capture)', dependsOn: ['currency'] }),
    currency: currencyFlag({ description: 'Currency of --amount (the capture currency)' }),
    message: Flags.string({ description: "The buyer's first message" }),
    'request-id': requestIdFlag(),
  };

  async run(): Promise<Dispute> {
    const dispute = await openSandboxDispute(
      this.client(),
      {
        disputed_transaction_id: this.args.capture_id,
        reason: this.flags.reason,
        ...(this.flags.amount && this.flags.currency ? { amount: moneyFromFlags(this.flags.amount, this.flags.currency) } : {}),
        ...(this.flags.message ? { message: this.flags.message } : {}),
      },
      this.requestOptions(),
    );
    this.renderDetail(actionRows(dispute, await this.clock()));
    return dispute;
  }
}
