import { Flags } from '@oclif/core';
import { addTracker, trackersOf, type Order } from '../../lib/api/orders.js';
import { orderIdArg } from '../../lib/args.js';
import { BaseCommand } from '../../lib/base-command.js';
import { requestIdFlag } from '../../lib/flags.js';
import { formatDate } from '../../lib/render/format.js';

export default class OrdersTrack extends BaseCommand<typeof OrdersTrack> {
  static override summary = "Add a shipment's tracking number to a captured order";

  static override description = `Adds tracking information for a shipment of one of the order's captures (the capture must be
COMPLETED). Without --capture-id, the order's only capture is used. The tracker's id is the capture id
and the tracking number joined by "-"; change or cancel it with "payctl orders update-tracker".`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> 5O190127TN364715T --tracking-number 1Z999AA10123456784 --carrier UPS',
    '<%= config.bin %> <%= command.id %> 5O190127TN364715T --tracking-number 92612999 --carrier OTHER --carrier-name-other "Local Courier" --sku BOOT-1 --json',
  ];

  static override args = { order: orderIdArg() };

  static override flags = {
    'tracking-number': Flags.string({ description: 'The shipment tracking number (1 to 64 characters)', required: true }),
    carrier: Flags.string({ description: 'Carrier, e.g. UPS, USPS, FEDEX, DHL, or OTHER with --carrier-name-other', required: true }),
    'carrier-name-other': Flags.string({ description: 'Name of the carrier when --carrier is OTHER' }),
    'capture-id': Flags.string({ description: "The capture shipped (default: the order's only capture)" }),
    status: Flags.string({ description: 'Shipment status, e.g. SHIPPED (default), ON_HOLD, DELIVERED' }),
    'notify-payer': Flags.boolean({ description: 'Email the tracking information to the payer' }),
    sku: Flags.string({ description: 'SKU of an order item in the shipment (repeatable)', multiple: true }),
    'request-id': requestIdFlag(),
  };

  async run(): Promise<Order> {
    const { flags } = this;
    const order = await addTracker(
      this.client(),
      this.args.order,
      {
        captureId: flags['capture-id'],
        trackingNumber: flags['tracking-number'],
        carrier: flags.carrier.toUpperCase(),
        carrierNameOther: flags['carrier-name-other'],
        status: flags.status?.toUpperCase(),
        notifyPayer: flags['notify-payer'],
        skus: flags.sku,
      },
      this.requestOptions(),
    );
    this.renderTable(trackersOf(order), [
      { header: 'Tracker', value: (tracker) => tracker.id, id: true },
      { header: 'Status', value: (tracker) => tracker.status, status: true },
      { header: 'Unit', value: (tracker) => tracker.reference_id },
      { header: 'Updated', value: (tracker) => formatDate(tracker.update_time) },
    ]);
    return order;
  }
}
