import { Args, Flags } from '@oclif/core';
import { provideEvidence, type Dispute } from '../../lib/api/disputes.js';
import { BaseCommand } from '../../lib/base-command.js';
import { evidenceFlags, submitEvidence } from '../../lib/dispute-flags.js';
import { requestIdFlag } from '../../lib/flags.js';
import { actionRows } from '../../lib/render/disputes.js';

export default class DisputesProvideEvidence extends BaseCommand<typeof DisputesProvideEvidence> {
  static override summary = 'Send evidence when the dispute waits for you';

  static override description = `Sends one piece of evidence with its documents. In a claim the dispute then goes to review; in an
inquiry the turn passes to the buyer. Proof of fulfillment needs --carrier and --tracking-number,
proof of refund needs --refund-id.`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> PP-D-4F2K9QWE7ZX1 --type PROOF_OF_FULFILLMENT --carrier UPS --tracking-number 1Z999AA10123456784 --file receipt.pdf',
    '<%= config.bin %> <%= command.id %> PP-D-4F2K9QWE7ZX1 --type OTHER --notes "Customer signed for it" --file signature.png',
  ];

  static override args = { id: Args.string({ description: 'Dispute id', required: true }) };

  static override flags = { ...evidenceFlags, 'request-id': requestIdFlag() };

  async run(): Promise<Dispute> {
    const dispute = await submitEvidence(provideEvidence, this.client(), this.args.id, this.flags, this.requestOptions());
    this.renderDetail(actionRows(dispute, await this.clock()));
    return dispute;
  }
}
