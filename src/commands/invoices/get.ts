import { getInvoice, type Invoice } from '../../lib/api/invoices.js';
import { invoiceIdArg } from '../../lib/args.js';
import { BaseCommand } from '../../lib/base-command.js';
import { formatMoney, formatValue } from '../../lib/render/format.js';
import { recipientOf } from '../../lib/render/invoices.js';

type Money = { currency_code: string; value: string };

function moneyAt(breakdown: Record<string, unknown> | undefined, ...path: string[]): Money | undefined {
  let current: unknown = breakdown;
  for (const key of path) current = current && typeof current === 'object' ? (current as Record<string, unknown>)[key] : undefined;
  return current && typeof current === 'object' && 'value' in current ? (current as Money) : undefined;
}

export default class InvoicesGet extends BaseCommand<typeof InvoicesGet> {
  static override summary = 'Show an invoice: header, items, totals, payments and refunds';

  static override description = 'Shows one invoice. --json prints the API resource exactly as the service returned it.';

  static override examples = ['<%= config.bin %> <%= command.id %> INV2-8ZR7KDT2L5Q3RWX4YB2N', '<%= config.bin %> <%= command.id %> INV2-8ZR7KDT2L5Q3RWX4YB2N --json'];

  static override args = { id: invoiceIdArg() };

  async run(): Promise<Invoice> {
    const invoice = await getInvoice(this.client(), this.args.id);
    const breakdown = invoice.amount?.breakdown;
    this.renderDetail([
      ['ID', invoice.id],
      ['Number', invoice.detail.invoice_number],
      ['Status', invoice.status, 'status'],
      ['Recipient', recipientOf(invoice)],
      ['Invoice date', invoice.detail.invoice_date],
      ['Due date', invoice.detail.payment_term?.due_date],
      ['Terms', invoice.detail.payment_term?.term_type],
    ]);
    if (invoice.items?.length) {
      this.log('');
      this.renderTable(invoice.items, [
        { header: 'Item', value: (item) => item.name },
        { header: 'Qty', value: (item) => item.quantity },
        { header: 'Unit price', value: (item) => formatMoney(item.unit_amount) },
        { header: 'Discount', value: (item) => formatMoney(item.discount?.amount) },
        { header: 'Tax', value: (item) => (item.tax ? `${item.tax.percent ?? ''}% ${formatMoney(item.tax.amount)}` : '') },
      ]);
    }
    this.log('');
    const rows: Array<readonly [string, string]> = [['Items', formatMoney(moneyAt(breakdown, 'item_total'))]];
    const itemDiscount = moneyAt(breakdown, 'discount', 'item_discount');
    const invoiceDiscount = moneyAt(breakdown, 'discount', 'invoice_discount', 'amount');
    if (itemDiscount) rows.push(['Item discounts', `-${formatMoney(itemDiscount)}`]);
    if (invoiceDiscount) rows.push(['Invoice discount', `-${formatMoney(invoiceDiscount)}`]);
    rows.push(['Tax', formatMoney(moneyAt(breakdown, 'tax_total'))]);
    const shipping = moneyAt(breakdown, 'shipping', 'amount');
    if (shipping) rows.push(['Shipping', formatMoney(shipping)]);
    const custom = moneyAt(breakdown, 'custom', 'amount');
    if (custom) rows.push([formatValue((breakdown?.custom as { label?: string } | undefined)?.label ?? 'Custom'), formatMoney(custom)]);
    rows.push(['Total', formatMoney(invoice.amount)]);
    if (invoice.payments?.paid_amount) rows.push(['Paid', formatMoney(invoice.payments.paid_amount)]);
    if (invoice.refunds?.refund_amount) rows.push(['Refunded', formatMoney(invoice.refunds.refund_amount)]);
    rows.push(['Due', formatMoney(invoice.due_amount)]);
    this.renderDetail(rows);
    const transactions = [
      ...(invoice.payments?.transactions ?? []).map((t) => ({ kind: 'payment', id: t.payment_id, date: t.payment_date, method: t.method, amount: t.amount })),
      ...(invoice.refunds?.transactions ?? []).map((t) => ({ kind: 'refund', id: t.refund_id, date: t.refund_date, method: t.method, amount: t.amount })),
    ];
    if (transactions.length > 0) {
      this.log('');
      this.renderTable(transactions, [
        { header: 'Kind', value: (t) => t.kind },
        { header: 'ID', value: (t) => t.id },
        { header: 'Date', value: (t) => t.date },
        { header: 'Method', value: (t) => t.method },
        { header: 'Amount', value: (t) => formatMoney(t.amount) },
      ]);
    }
    return invoice;
  }
}
