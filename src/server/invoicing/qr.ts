// The QR code of a sent invoice: a PNG that points at the payer's view of the invoice.

import type { ServiceContext } from '../core/deps.js';
import { ownInvoice } from './invoices.js';
import { payerViewUrl, statusOf } from './resource.js';
import { assertCanPerform } from './states.js';

export interface QrOptions {
  width?: number | undefined;
  height?: number | undefined;
  action?: string | undefined;
}

/** PNG bytes. QR codes are square: the image is min(width, height) pixels on each side (default 500). */
export async function invoiceQrCode(ctx: ServiceContext, id: string, options: QrOptions): Promise<Buffer> {
  const row = await ownInvoice(ctx, id);
  assertCanPerform('qr-code', statusOf(row));
  const action = (options.action ?? 'pay').toLowerCase();
  const target = `${payerViewUrl(ctx.baseUrl, row.id)}?action=${action}`;
  const size = Math.min(options.width ?? 500, options.height ?? 500);
  // Loaded on the first QR code, not with the server: qrcode and its PNG encoder were ~3-5 ms of
  // every `payctl serve` launch.
  const { default: QRCode } = await import('qrcode');
  return QRCode.toBuffer(target, { type: 'png', width: size, margin: 2, errorCorrectionLevel: 'M' });
}
