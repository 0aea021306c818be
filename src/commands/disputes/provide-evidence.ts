import { Args, Flags } from '@oclif/core';
import { loadEvidenceFile, provideEvidence, type Dispute } from '../../lib/api/disputes.js';
import { UsageError } from '../../lib/api/errors.js';
import { BaseCommand } from '../../lib/base-command.js';
import { requestIdFlag } from '../../lib/flags.js';
import { nextSteps, summaryRows } from './get.js';

/** Evidence flags shared with `appeal`: one evidence of --type with its notes, tracking, refunds and files. */
export const evidenceFlags = {
  type: Flags.string({ description: 'Evidence type, e.g. PROOF_OF_FULFILLMENT, PROOF_OF_REFUND, PROOF_OF_DELIVERY_SIGNATURE, OTHER', default: 'OTHER' }),
  notes: Flags.string({ description: 'Notes on the evidence (1 to 2000 characters)' }),
  'tracking-number': Flags.string({ description: 'Shipment tracking number (with --carrier)' }),
  carrier: Flags.string({ description: 'Carrier of the shipment, e.g. UPS, USPS, FEDEX, DHL' }),
  'refund-id': Flags.string({ description: 'Id of a refund already made (PROOF_OF_REFUND; repeatable)', multiple: true }),
  file: Flags.string({ description: 'A document: PDF, JPEG, GIF or PNG (repeatable; at most 10 of 10 MB, 50 MB in all)', multiple: true }),
};

export function evidenceFrom(flags: {
  type: string;
  notes?: string | undefined;
  'tracking-number'?: string | undefined;
  carrier?: string | undefined;
  'refund-id'?: string[] | undefined;
}): Record<string, unknown> {
  if (flags['tracking-number'] && !flags.carrier) throw new UsageError('--tracking-number needs --carrier (e.g. --carrier UPS)');
  const info: Record<string, unknown> = {};
  if (flags['tracking-number']) info.tracking_info = [{ carrier_name: flags.carrier?.toUpperCase(), tracking_number: flags['tracking-number'] }];
  if (flags['refund-id']?.length) info.refund_ids = flags['refund-id'];
  return {
    evidence_type: flags.type.toUpperCase(),
    ...(Object.keys(info).length > 0 ? { evidence_info: info } : {}),
    ...(flags.notes ? { notes: flags.notes } : {}),
  };
}

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
      ...(this.flags['request-id'] ? { requestId: this.flags['request-id'] } : {}),
    });
    this.renderDetail([...summaryRows(dispute), ['Next', nextSteps(dispute).join('\n')]]);
    return dispute;
  }
}
