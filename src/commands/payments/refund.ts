import { Args, Flags } from '@oclif/core';
import { accountClock } from '../../lib/account-clock.js';
import { UsageError, exitCodeFor, type ErrorReport } from '../../lib/api/errors.js';
import { refundCapture, type Refund } from '../../lib/api/payments.js';
import type { TransactionInfo } from '../../lib/api/reporting.js';
import { findCaptureByInvoiceId } from '../../lib/find-capture.js';
import { BaseCommand } from '../../lib/base-command.js';
import { amountFlag, currencyFlag, requestIdFlag, yesFlag } from '../../lib/flags.js';
import { prepareRefund, refundWhat } from '../../lib/refund-capture.js';
import { readRefundFile, refundFileRows } from '../../lib/refund-file.js';
import { formatDate } from '../../lib/render/format.js';
import { refundRows } from '../../lib/render/payments.js';
import { ProgressLine } from '../../lib/render/progress.js';

/** How far back --invoice-id looks for the capture by default: as long as a capture can be refunded. */
const DEFAULT_SINCE_DAYS = 180;

export default class PaymentsRefund extends BaseCommand<typeof PaymentsRefund> {
  static override summary = 'Refund a captured payment, fully or partly, or many from a CSV file';

  static override description = `Without --amount, refunds what is left of the capture; the server decides what that is, and a refused --amount says how much can be refunded. On a terminal, shows the capture and asks for confirmation unless --yes; with --yes (or without a terminal) nothing is read first.

With --invoice-id and no CAPTURE, finds the capture paid under that invoice id through the transaction search of the last --since days (180 by default, in 31-day requests) and shows it in the confirmation. When no capture matches it exits 3; when several do it exits 2 and lists them (in the error's details with --json): refund one by its id.

With --from-file, refunds every row of a CSV file with the columns capture_id, amount, currency, note (an empty amount refunds the rest; an empty currency means the capture's). Each row is sent with a request id derived from the file's content and the row number, so running the same file again replays the refunds already made instead of refunding twice; change nothing in a file between runs (put corrections in a new file). Prints one result line per row (NDJSON with --json) and exits non-zero if any row failed.`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> 3C679366HH908993F --yes',
    '<%= config.bin %> <%= command.id %> 3C679366HH908993F --amount 10.00 --note "Damaged item" --invoice-id RF-1001 --yes --json',
    '<%= config.bin %> <%= command.id %> --invoice-id INV-1001 --amount 5.00',
    '<%= config.bin %> <%= command.id %> --from-file refunds.csv --yes',
  ];

  // oclif's generated line mangles the exclusive groups ("[--note <value> | ]") and reads as if
  // --amount needed --currency; it is the other way round, and --currency is optional.
  static override usage = [
    '<%= command.id %> CAPTURE [--amount DECIMAL [--currency CODE]] [--note TEXT] [--invoice-id TEXT] [--custom-id TEXT] [--request-id ID] [-y] [--json]',
    '<%= command.id %> --invoice-id INVOICE [--since DAYS] [--amount DECIMAL [--currency CODE]] [--note TEXT] [--custom-id TEXT] [--request-id ID] [-y] [--json]',
    '<%= command.id %> --from-file FILE [-y] [--json]',
  ];

  static override args = {
    capture: Args.string({ description: 'Capture id (or use --invoice-id or --from-file)', required: false }),
  };

  static override flags = {
    amount: amountFlag({ exclusive: ['from-file'] }),
    currency: currencyFlag({ dependsOn: ['amount'], description: "Currency of --amount (default: the capture's); only with --amount" }),
    note: Flags.string({ description: 'Reason shown to the payer (1-255 characters)', exclusive: ['from-file'] }),
    'invoice-id': Flags.string({
      description:
        'With CAPTURE: your invoice number for the refund (1-127 characters). Without: refund the capture paid under this invoice id, found through the transaction search',
      exclusive: ['from-file'],
    }),
    since: Flags.integer({
      description: `With --invoice-id and no CAPTURE: search the captures of the last DAYS days (default ${DEFAULT_SINCE_DAYS})`,
      min: 1,
      max: 3 * 366,
      helpValue: 'DAYS',
    }),
    'custom-id': Flags.string({ description: 'Your reference for the refund (1-127 characters)', exclusive: ['from-file'] }),
    'from-file': Flags.string({ description: 'CSV file of refunds: capture_id,amount,currency,note', exclusive: ['request-id'] }),
    'request-id': requestIdFlag(),
    yes: yesFlag(),
  };

  async run(): Promise<Refund | undefined> {
    const file = this.flags['from-file'];
    if (file && this.args.capture) throw new UsageError('give either a CAPTURE_ID or --from-file, not both');
    if (file) return this.refundFile(file);
    if (this.flags.since !== undefined && (this.args.capture || !this.flags['invoice-id'])) {
      throw new UsageError('--since goes with --invoice-id and no CAPTURE_ID (it bounds the search for the capture)');
    }
    if (this.args.capture) return this.refundOne(this.args.capture);
    if (this.flags['invoice-id']) return this.refundByInvoiceId(this.flags['invoice-id']);
    throw new UsageError('missing CAPTURE_ID (or --invoice-id INVOICE, or --from-file FILE)');
  }

  /**
   * Refunds one capture. With --yes (or without a terminal, which fails here before anything is
   * read) nothing but the refund itself is sent, unless --amount needs the capture's currency.
   */
  private async refundOne(captureId: string, found?: TransactionInfo): Promise<Refund> {
    const client = this.client();
    const { flags } = this;
    if (!flags.yes && !this.canPrompt()) await this.confirm(`Refund ${refundWhat(flags)} of capture ${captureId}?`);
    const { body, what, capture } = await prepareRefund(client, captureId, flags, { confirming: !flags.yes, found });
    await this.confirm(`Refund ${what} of capture ${captureId} (${capture})?`);
    const refund = await refundCapture(client, captureId, body, this.requestOptions());
    this.renderDetail([
      ...refundRows(refund),
      ['Capture', captureId],
      ['Created', formatDate(refund.create_time)],
    ]);
    return refund;
  }

  /** --invoice-id without a capture id: the one capture paid under it, found through the transaction search. */
  private async refundByInvoiceId(invoiceId: string): Promise<Refund> {
    const client = this.client();
    const sinceDays = this.flags.since ?? DEFAULT_SINCE_DAYS;
    const progress = new ProgressLine(Boolean(process.stderr.isTTY));
    const clock = await accountClock(client);
    const capture = await findCaptureByInvoiceId(client, {
      invoiceId,
      sinceDays,
      nowMs: clock.now,
      onWindow: (index, count) => progress.update(`Searching for invoice ${invoiceId}: ${index + 1}/${count} 31-day windows`, true),
    }).finally(() => progress.done());
    return this.refundOne(capture.transaction_id as string, capture);
  }

  /** Rows answered so far in a bulk run, for the progress line and for what Ctrl+C says. */
  private bulk?: { file: string; total: number; refunded: number; failed: number; progress: ProgressLine };

  protected override interruptedMessage(): string {
    const bulk = this.bulk;
    if (!bulk) return super.interruptedMessage();
    bulk.progress.done();
    const done = bulk.refunded + bulk.failed;
    const inFlight = done < bulk.total ? `; row ${done + 1} was in flight and may have been refunded` : '';
    return (
      `interrupted (Ctrl+C) after ${done} of ${bulk.total} row(s) of ${bulk.file} (${bulk.refunded} refunded, ${bulk.failed} failed)${inFlight}. ` +
      'Re-running the same file resumes safely: rows already refunded are answered with their existing refund, never refunded twice.'
    );
  }

  private async refundFile(file: string): Promise<undefined> {
    const refundFile = readRefundFile(file);
    await this.confirm(`Refund the ${refundFile.rows.length} row(s) of ${file}?`);
    const progress = new ProgressLine(ProgressLine.wanted(this.jsonEnabled()));
    const bulk = { file, total: refundFile.rows.length, refunded: 0, failed: 0, progress };
    this.bulk = bulk;
    const progressText = () => `Refunding ${file}: ${bulk.refunded + bulk.failed}/${bulk.total} rows (${bulk.refunded} refunded, ${bulk.failed} failed)`;
    progress.update(progressText(), true);
    const { outcomes, firstFailure } = await refundFileRows(this.client(), refundFile, (outcome) => {
      if (outcome.error) bulk.failed += 1;
      else bulk.refunded += 1;
      if (this.jsonEnabled()) process.stdout.write(`${JSON.stringify(outcome)}\n`);
      progress.update(progressText(), bulk.refunded + bulk.failed === bulk.total);
    });
    progress.done();
    this.renderTable(outcomes, [
      { header: 'Row', value: (outcome) => String(outcome.row) },
      { header: 'Capture', value: (outcome) => outcome.capture_id, id: true },
      { header: 'Status', value: (outcome) => outcome.status, status: true },
      { header: 'Refund', value: (outcome) => outcome.refund_id, id: true },
      { header: 'Amount', value: (outcome) => outcome.amount },
      { header: 'Error', value: (outcome) => (outcome.error ? errorText(outcome.error) : undefined) },
    ]);
    if (firstFailure !== undefined) {
      const failed = outcomes.filter((outcome) => outcome.error).length;
      this.notice(`${failed} of ${outcomes.length} refund(s) failed; fix them in a new file (re-running this file replays the others).`);
      return this.exit(exitCodeFor(firstFailure));
    }
    return undefined;
  }
}

function errorText(report: ErrorReport): string {
  const issue = report.details?.[0]?.issue;
  return issue ? `${report.name}: ${issue}` : `${report.name}: ${report.message}`;
}
