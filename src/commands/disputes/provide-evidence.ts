import { Args, Flags } from '@oclif/core';
import { loadEvidenceFile, provideEvidence, type Dispute } from '../../lib/api/disputes.js';
import { BaseCommand } from '../../lib/base-command.js';
import { evidenceFlags, evidenceFrom } from '../../lib/dispute-flags.js';
import { requestIdFlag } from '../../lib/flags.js';
import { nextSteps, summaryRows } from '../../lib/render/disputes.js';

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
    const evidence = evidenceFrom(this.flags);
    const files = await Promise.all((this.flags.file ?? []).map(loadEvidenceFile));
    const dispute = await provideEvidence(this.client(), this.args.id, { evidences: [evidence] }, {
      files,
      ...this.requestOptions(),
    });
    this.renderDetail([...summaryRows(dispute, await this.clock()), ['Next', nextSteps(dispute).join('\n')]]);
    return dispute;
  }
}
