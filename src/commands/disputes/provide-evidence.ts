import { provideEvidence } from '../../lib/api/disputes.js';
import { EvidenceCommand } from '../../lib/evidence-command.js';

export default class DisputesProvideEvidence extends EvidenceCommand {
  static override summary = 'Send evidence when the dispute waits for you';

  static override description = `Sends one piece of evidence with its documents. In a claim the dispute then goes to review; in an
inquiry the turn passes to the buyer. Proof of fulfillment needs --carrier and --tracking-number,
proof of refund needs --refund-id.`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> PP-D-4F2K9QWE7ZX1 --type PROOF_OF_FULFILLMENT --carrier UPS --tracking-number 1Z999AA10123456784 --file receipt.pdf',
    '<%= config.bin %> <%= command.id %> PP-D-4F2K9QWE7ZX1 --type OTHER --notes "Customer signed for it" --file signature.png',
  ];

  protected readonly endpoint = provideEvidence;
}
