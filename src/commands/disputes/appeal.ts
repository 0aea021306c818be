import { Args } from '@oclif/core';
import { appealDispute, type Dispute } from '../../lib/api/disputes.js';
import { BaseCommand } from '../../lib/base-command.js';
import { evidenceFlags, submitEvidence } from '../../lib/dispute-flags.js';
import { requestIdFlag } from '../../lib/flags.js';
import { actionRows } from '../../lib/render/disputes.js';

export default class DisputesAppeal extends BaseCommand<typeof DisputesAppeal> {
  static override summary = 'Appeal a decision against you, with new evidence';

  static override description = `Possible while the dispute shows an appeal link: a decision for the buyer in a claim, within 10 days.
The dispute moves to the next stage (PRE_ARBITRATION, then ARBITRATION) and back under review.`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> PP-D-4F2K9QWE7ZX1 --file delivery-signature.pdf --notes "Signed on delivery"',
    '<%= config.bin %> <%= command.id %> PP-D-4F2K9QWE7ZX1 --type PROOF_OF_DELIVERY_SIGNATURE --file signature.png --json',
  ];

  static override args = { id: Args.string({ description: 'Dispute id', required: true }) };

  static override flags = { ...evidenceFlags, 'request-id': requestIdFlag() };

  async run(): Promise<Dispute> {
    const dispute = await submitEvidence(appealDispute, this.client(), this.args.id, this.flags, this.requestOptions());
    this.renderDetail(actionRows(dispute, await this.clock()));
    return dispute;
  }
}
