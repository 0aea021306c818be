import { Flags } from '@oclif/core';
import { sendMessage, type Dispute } from '../../lib/api/disputes.js';
import { disputeIdArg } from '../../lib/args.js';
import { BaseCommand } from '../../lib/base-command.js';
import { filesFrom } from '../../lib/dispute-flags.js';
import { requestIdFlag } from '../../lib/flags.js';
import { actionRows } from '../../lib/render/disputes.js';

export default class DisputesSendMessage extends BaseCommand<typeof DisputesSendMessage> {
  static override summary = 'Send a message to the buyer (inquiry stage)';

  static override description = `Posts a message on the dispute, optionally with files (PDF, JPEG, GIF or PNG; at most 10 files of
10 MB, 50 MB in all). Answering an inquiry hands the turn to the buyer.`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> PP-D-4F2K9QWE7ZX1 --message "Shipped on Monday, tracking attached."',
    '<%= config.bin %> <%= command.id %> PP-D-4F2K9QWE7ZX1 --message "Label attached" --file label.png',
  ];

  static override args = { id: disputeIdArg() };

  static override flags = {
    message: Flags.string({ char: 'm', description: 'The message (1 to 2000 characters)', required: true }),
    file: Flags.string({ description: 'A file to attach (repeatable)', multiple: true }),
    'request-id': requestIdFlag(),
  };

  async run(): Promise<Dispute> {
    const files = await filesFrom(this.flags);
    const dispute = await sendMessage(this.client(), this.args.id, { message: this.flags.message }, {
      files,
      ...this.requestOptions(),
    });
    this.renderDetail(actionRows(dispute, await this.clock()));
    return dispute;
  }
}
