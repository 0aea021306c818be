import { readFile } from 'node:fs/promises';
import { Flags } from '@oclif/core';
import { UsageError } from '../../lib/api/errors.js';
import { createPayoutBatch, type CreatedPayoutBatch } from '../../lib/api/payouts.js';
import { BaseCommand } from '../../lib/base-command.js';
import { requestIdFlag, yesFlag } from '../../lib/flags.js';
import { PayoutFileError, defaultSenderBatchId, formatTotals, parsePayoutFile } from '../../lib/payouts-file.js';
import { formatDate } from '../../lib/render/format.js';

export default class PayoutsCreate extends BaseCommand<typeof PayoutsCreate> {
  static override summary = 'Send a payout batch from a CSV or JSON file';

  static override description = `Reads every payout from --file and checks them all before anything is sent: a file with
a bad row is refused whole (exit 2), each problem named by its line (CSV) or item index (JSON).

CSV: a header row, then one payout per row. Columns: receiver, amount, currency (required), note,
sender_item_id, recipient_type (EMAIL, PHONE, PAYPAL_ID, USER_HANDLE; default --recipient-type),
recipient_wallet, purpose. JSON: the API's request ({"sender_batch_header": {...}, "items": [...]})
or just the array of items.

The batch's sender_batch_id defaults to one derived from the file's content, so running the same
file again is refused by the service instead of paying twice. Asks for confirmation on a terminal,
showing the number of payouts and the total per currency; scripts pass --yes. The batch is
processed in the background: follow it with \`payctl payouts get BATCH_ID --wait\`.`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> --file payouts.csv',
    '<%= config.bin %> <%= command.id %> --file batch.json --yes --json',
    '<%= config.bin %> <%= command.id %> --file payouts.csv --sender-batch-id march-bonuses --email-subject "Your bonus" --yes',
  ];

  static override flags = {
    file: Flags.string({ char: 'f', description: 'CSV or JSON file with the payouts', required: true }),
    'sender-batch-id': Flags.string({ description: "Your id for the batch (default: derived from the file's content)" }),
    'recipient-type': Flags.string({
      description: 'Recipient type of rows that name none',
      options: ['EMAIL', 'PHONE', 'PAYPAL_ID'],
      default: 'EMAIL',
    }),
    'email-subject': Flags.string({ description: 'Subject of the e-mail receivers get' }),
    'email-message': Flags.string({ description: 'Message of the e-mail receivers get' }),
    yes: yesFlag(),
    'request-id': requestIdFlag(),
  };

  async run(): Promise<CreatedPayoutBatch> {
    const { file } = this.flags;
    let content: Buffer;
    try {
      content = await readFile(file);
    } catch (error) {
      throw new UsageError(`cannot read --file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    let parsed: ReturnType<typeof parsePayoutFile>;
    try {
      parsed = parsePayoutFile(file, content, { recipientType: this.flags['recipient-type'] });
    } catch (error) {
      if (error instanceof PayoutFileError) throw new UsageError(error.message);
      throw error;
    }
    const header = parsed.request.sender_batch_header;
    header.sender_batch_id = this.flags['sender-batch-id'] ?? header.sender_batch_id ?? defaultSenderBatchId(parsed.contentHash);
    if (this.flags['email-subject'] !== undefined) header.email_subject = this.flags['email-subject'];
    if (this.flags['email-message'] !== undefined) header.email_message = this.flags['email-message'];
    if (header.sender_batch_id.length > 256) throw new UsageError('--sender-batch-id must be at most 256 characters');

    const client = this.client();
    const count = parsed.request.items.length;
    await this.confirm(
      `Pay ${count} payout${count === 1 ? '' : 's'} totalling ${formatTotals(parsed.totals)} (plus fees) as batch "${header.sender_batch_id}" on ${client.baseUrl}?`,
    );
    const created = await createPayoutBatch(client, parsed.request, this.requestOptions());
    const batch = created.batch_header;
    this.renderDetail([
      ['Batch id', batch.payout_batch_id],
      ['Status', batch.batch_status, 'status'],
      ['Sender batch id', batch.sender_batch_header?.sender_batch_id],
      ['Payouts', String(count)],
      ['Total', formatTotals(parsed.totals)],
      ['Created', formatDate(batch.time_created)],
    ]);
    this.notice(`Follow it with: ${this.config.bin} payouts get ${batch.payout_batch_id} --wait`);
    return created;
  }
}
