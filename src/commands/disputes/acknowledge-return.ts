import { Flags } from '@oclif/core';
import { acknowledgeReturnItem, type Dispute } from '../../lib/api/disputes.js';
import { disputeIdArg } from '../../lib/args.js';
import { BaseCommand } from '../../lib/base-command.js';
import { filesFrom } from '../../lib/dispute-flags.js';
import { requestIdFlag } from '../../lib/flags.js';
import { actionRows } from '../../lib/render/disputes.js';

export default class DisputesAcknowledgeReturn extends BaseCommand<typeof DisputesAcknowledgeReturn> {
  static override summary = 'Acknowledge the item the buyer sent back';

  static override description = `ITEM_RECEIVED pays the refund agreed for the return and closes the dispute; any other type (not
received, damaged, empty or different, missing items) sends the dispute to review instead.`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> PP-D-4F2K9QWE7ZX1 --type ITEM_RECEIVED',
    '<%= config.bin %> <%= command.id %> PP-D-4F2K9QWE7ZX1 --type DAMAGED --note "Arrived broken" --file photo.jpg',
  ];

  static override args = { id: disputeIdArg() };

  static override flags = {
    type: Flags.string({
      description: 'What came back',
      options: ['ITEM_RECEIVED', 'ITEM_NOT_RECEIVED', 'DAMAGED', 'EMPTY_PACKAGE_OR_DIFFERENT', 'MISSING_ITEMS'],
      required: true,
    }),
    note: Flags.string({ description: 'Note (1 to 2000 characters)' }),
    file: Flags.string({ description: 'A document or photo (repeatable)', multiple: true }),
    'request-id': requestIdFlag(),
  };

  async run(): Promise<Dispute> {
    const files = await filesFrom(this.flags);
    const body = { acknowledgement_type: this.flags.type, ...(this.flags.note ? { note: this.flags.note } : {}) };
    const dispute = await acknowledgeReturnItem(this.client(), this.args.id, body, {
      files,
      ...this.requestOptions(),
    });
    this.renderDetail(actionRows(dispute, await this.clock()));
    return dispute;
  }
}
