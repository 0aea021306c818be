import { Flags } from '@oclif/core';
import { UsageError } from '../../lib/api/errors.js';
import { updateCommunicationDetails, type Dispute } from '../../lib/api/disputes.js';
import { disputeIdArg } from '../../lib/args.js';
import { BaseCommand } from '../../lib/base-command.js';
import { requestIdFlag } from '../../lib/flags.js';
import { summaryRows } from '../../lib/render/disputes.js';

export default class DisputesUpdateContact extends BaseCommand<typeof DisputesUpdateContact> {
  static override summary = 'Set the email and note the buyer can use to reach you about a dispute';

  static override description = `Sets the communication details of an open dispute (PATCH of communication_details): an email
address the buyer can send evidence to, and a note both the buyer and the reviewer see. What you give
replaces all that was set before.`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> PP-D-4F2K9QWE7ZX1 --email returns@example.com',
    '<%= config.bin %> <%= command.id %> PP-D-4F2K9QWE7ZX1 --email returns@example.com --note "Photos of the parcel welcome" --json',
  ];

  static override args = { id: disputeIdArg() };

  static override flags = {
    email: Flags.string({ description: 'Email address for the buyer to write to' }),
    note: Flags.string({ description: 'A note for the buyer and the reviewer (1 to 2000 characters)' }),
    'request-id': requestIdFlag(),
  };

  async run(): Promise<Dispute> {
    const { email, note } = this.flags;
    if (email === undefined && note === undefined) throw new UsageError('give --email, --note, or both');
    const dispute = await updateCommunicationDetails(
      this.client(),
      this.args.id,
      { ...(email !== undefined ? { email } : {}), ...(note !== undefined ? { note } : {}) },
      this.requestOptions(),
    );
    const contact = dispute.communication_details as { email?: string; note?: string } | undefined;
    this.renderDetail([...summaryRows(dispute), ['Contact email', contact?.email], ['Contact note', contact?.note]]);
    return dispute;
  }
}
