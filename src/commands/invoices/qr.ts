import { writeFile } from 'node:fs/promises';
import { Flags } from '@oclif/core';
import { invoiceQrCode } from '../../lib/api/invoices.js';
import { invoiceIdArg } from '../../lib/args.js';
import { BaseCommand } from '../../lib/base-command.js';
import { givenOptions } from '../../lib/flags.js';

export default class InvoicesQr extends BaseCommand<typeof InvoicesQr> {
  static override summary = "Save a sent invoice's QR code as a PNG file";

  static override description = `Writes the QR code of a sent invoice (it opens the payer's view of the invoice) to a PNG
file. The code is square: its side is the smaller of --width and --height (150 to 500 pixels).
--json prints {"id", "output", "bytes"}.`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> INV2-8ZR7KDT2L5Q3RWX4YB2N --output invoice.png',
    '<%= config.bin %> <%= command.id %> INV2-8ZR7KDT2L5Q3RWX4YB2N --output qr.png --width 200 --height 200 --action details',
  ];

  static override args = { id: invoiceIdArg() };

  static override flags = {
    output: Flags.string({ char: 'o', description: 'PNG file to write', required: true }),
    width: Flags.integer({ description: 'Width in pixels', min: 150, max: 500 }),
    height: Flags.integer({ description: 'Height in pixels', min: 150, max: 500 }),
    action: Flags.string({ description: 'What scanning it offers', options: ['pay', 'details'] }),
  };

  async run(): Promise<{ id: string; output: string; bytes: number }> {
    const f = this.flags;
    const png = await invoiceQrCode(this.client(), this.args.id, givenOptions({ width: f.width, height: f.height, action: f.action }));
    await writeFile(f.output, png);
    this.renderDetail([
      ['Invoice', this.args.id],
      ['Written', `${f.output} (${png.length} bytes)`],
    ]);
    return { id: this.args.id, output: f.output, bytes: png.length };
  }
}
