import { appealDispute } from '../../lib/api/disputes.js';
import { EvidenceCommand } from '../../lib/evidence-command.js';

export default class DisputesAppeal extends EvidenceCommand {
  static override summary = 'Appeal a decision against you, with new evidence';

  static override description = `Possible while the dispute shows an appeal link: a decision for the buyer in a claim, within 10 days.
The dispute moves to the next stage (PRE_ARBITRATION, then ARBITRATION) and back under review.`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> PP-D-4F2K9QWE7ZX1 --file delivery-signature.pdf --notes "Signed on delivery"',
    '<%= config.bin %> <%= command.id %> PP-D-4F2K9QWE7ZX1 --type PROOF_OF_DELIVERY_SIGNATURE --file signature.png --json',
  ];

  protected readonly endpoint = appealDispute;
}
