// `disputes provide-evidence` and `disputes appeal` are one command sent to two endpoints: one
// evidence from the flags, with its files. Each command file names its endpoint and its help.

import type { Dispute, provideEvidence } from './api/disputes.js';
import { disputeIdArg } from './args.js';
import { BaseCommand } from './base-command.js';
import { evidenceFlags, submitEvidence } from './dispute-flags.js';
import { requestIdFlag } from './flags.js';
import { actionRows } from './render/disputes.js';

export abstract class EvidenceCommand extends BaseCommand<typeof EvidenceCommand> {
  static override args = { id: disputeIdArg() };

  static override flags = { ...evidenceFlags, 'request-id': requestIdFlag() };

  /** The API call the evidence goes to. */
  protected abstract readonly endpoint: typeof provideEvidence;

  async run(): Promise<Dispute> {
    const dispute = await submitEvidence(this.endpoint, this.client(), this.args.id, this.flags, this.requestOptions());
    this.renderDetail(actionRows(dispute, await this.clock()));
    return dispute;
  }
}
