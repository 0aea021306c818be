import { getDispute, type Dispute } from '../../lib/api/disputes.js';
import { disputeIdArg } from '../../lib/args.js';
import { BaseCommand } from '../../lib/base-command.js';
import { caseFile } from '../../lib/render/disputes.js';

export default class DisputesGet extends BaseCommand<typeof DisputesGet> {
  static override summary = 'Show a dispute as a case file: summary, transaction, timeline and what to do next';

  static override description = `Prints the dispute's headline (status, stage, reason, amount, outcome, who must answer by when), the
disputed transaction, a timeline of messages, offers, evidence, decisions and money movements, and
the commands for the actions the dispute allows now. --json prints the API's dispute document.`;

  static override examples = ['<%= config.bin %> <%= command.id %> PP-D-4F2K9QWE7ZX1', '<%= config.bin %> <%= command.id %> PP-D-4F2K9QWE7ZX1 --json'];

  static override args = { id: disputeIdArg() };

  async run(): Promise<Dispute> {
    const dispute = await getDispute(this.client(), this.args.id);
    this.log(caseFile(dispute, await this.clock()));
    return dispute;
  }
}
