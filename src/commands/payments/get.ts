import { Args } from '@oclif/core';
import { authorizationView, captureView } from '../../lib/api/orders.js';
import { getRefund, upId, type Authorization, type Capture, type Refund } from '../../lib/api/payments.js';
import { BaseCommand } from '../../lib/base-command.js';
import { formatDate, formatMoney } from '../../lib/render/format.js';
import { captureRows, historyRows, refundRows } from '../../lib/render/payments.js';

export default class PaymentsGet extends BaseCommand<typeof PaymentsGet> {
  static override summary = 'Show an authorization, capture or refund';

  static override description = `Shows the resource with its amounts, what is left to capture (authorization) or refund (capture), its status and its history (captures of an authorization, refunds of a capture). --json prints the resource exactly as the API returns it.`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> authorization 7XJ2ABCDEF1234567',
    '<%= config.bin %> <%= command.id %> capture 3C679366HH908993F',
    '<%= config.bin %> <%= command.id %> refund 1JU08902781691411 --json',
  ];

  static override args = {
    type: Args.string({ description: 'What to show', options: ['authorization', 'capture', 'refund'], required: true }),
    id: Args.string({ description: 'Its id', required: true }),
  };

  async run(): Promise<Authorization | Capture | Refund> {
    const client = this.client();
    const { id } = this.args;
    if (this.args.type === 'authorization') {
      const view = await authorizationView(client, id);
      const { authorization } = view;
      this.renderDetail([
        ['Authorization', authorization.id],
        ['Status', authorization.status, 'status'],
        ['Reason', authorization.status_details?.reason],
        ['Amount', formatMoney(authorization.amount)],
        ['Captured', formatMoney(view.captured)],
        ['Capturable', formatMoney(view.capturable)],
        ['Invoice id', authorization.invoice_id],
        ['Custom id', authorization.custom_id],
        ['Order', authorization.supplementary_data?.related_ids?.order_id],
        ['Expires', formatDate(authorization.expiration_time)],
        ...historyRows(view.history),
      ]);
      return authorization;
    }
    if (this.args.type === 'capture') {
      const view = await captureView(client, id);
      const { capture } = view;
      this.renderDetail([
        ...captureRows(capture),
        ['Refunded', formatMoney(view.refunded)],
        ['Refundable', formatMoney(view.refundable)],
        ['Final capture', capture.final_capture ? 'yes' : 'no'],
        ['Invoice id', capture.invoice_id],
        ['Authorization', capture.supplementary_data?.related_ids?.authorization_id],
        ['Order', capture.supplementary_data?.related_ids?.order_id],
        ...historyRows(view.history),
      ]);
      return capture;
    }
    const refund = await getRefund(client, id);
    this.renderDetail([
      ...refundRows(refund),
      ['Capture', upId(refund)],
      ['Invoice id', refund.invoice_id],
      ['Custom id', refund.custom_id],
      ['Note to payer', refund.note_to_payer],
      ['Created', formatDate(refund.create_time)],
    ]);
    return refund;
  }
}
