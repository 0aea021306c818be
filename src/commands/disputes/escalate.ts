import { Flags } from '@oclif/core';
import { escalateDispute, type Dispute } from '../../lib/api/disputes.js';
import { disputeIdArg } from '../../lib/args.js';
import { BaseCommand } from '../../lib/base-command.js';
import { requestIdFlag } from '../../lib/flags.js';
import { actionRows } from '../../lib/render/disputes.js';

export default class DisputesEscalate extends BaseCommand<typeof DisputesEscalate> {
  static override summary = 'Escalate an inquiry to a claim the service decides';

  static override description = `Moves the dispute from INQUIRY to CHARGEBACK (a claim). You are then asked for evidence, with 10 days
to answer.`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> PP-D-4F2K9QWE7ZX1 --note "We cannot agree; please decide."',
    '<%= config.bin %> <%= command.id %> PP-D-4F2K9QWE7ZX1 --note "Escalating" --json',
  ];

  static override args = { id: disputeIdArg() };

  static override flags = {
    note: Flags.string({ description: 'Why (1 to 2000 characters)', required: true }),
    'request-id': requestIdFlag(),
  };

  async run(): Promise<Dispute> {
    const dispute = await escalateDispute(this.client(), this.args.id, { note: this.flags.note }, this.requestOptions());
    this.renderDetail(actionRows(dispute, await this.clock()));
    return dispute;
  }
}
