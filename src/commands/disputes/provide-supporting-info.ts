import { Flags } from '@oclif/core';
import { UsageError } from '../../lib/api/errors.js';
import { provideSupportingInfo, type Dispute } from '../../lib/api/disputes.js';
import { disputeIdArg } from '../../lib/args.js';
import { BaseCommand } from '../../lib/base-command.js';
import { filesFrom } from '../../lib/dispute-flags.js';
import { requestIdFlag } from '../../lib/flags.js';
import { actionRows } from '../../lib/render/disputes.js';

export default class DisputesProvideSupportingInfo extends BaseCommand<typeof DisputesProvideSupportingInfo> {
  static override summary = 'Add supporting information to a claim (notes and documents)';

  static override description = `Gives notes and documents for the review of a claim (stage CHARGEBACK, PRE_ARBITRATION or
ARBITRATION), without waiting to be asked for evidence. The dispute's status does not change. Files: PDF,
JPEG, GIF or PNG, at most 10 of 10 MB, 50 MB in all.`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> PP-D-4F2K9QWE7ZX1 --notes "Delivered on the 3rd; signed slip attached" --file slip.pdf',
    '<%= config.bin %> <%= command.id %> PP-D-4F2K9QWE7ZX1 --notes "The buyer confirmed receipt by email" --json',
  ];

  static override args = { id: disputeIdArg() };

  static override flags = {
    notes: Flags.string({ description: 'Notes for the reviewer (1 to 2000 characters)' }),
    file: Flags.string({ description: 'A supporting document (repeatable)', multiple: true }),
    'request-id': requestIdFlag(),
  };

  async run(): Promise<Dispute> {
    if (!this.flags.notes && !this.flags.file?.length) throw new UsageError('give --notes, --file, or both');
    const files = await filesFrom(this.flags);
    const dispute = await provideSupportingInfo(this.client(), this.args.id, this.flags.notes ? { notes: this.flags.notes } : {}, {
      files,
      ...this.requestOptions(),
    });
    this.renderDetail(actionRows(dispute));
    return dispute;
  }
}
