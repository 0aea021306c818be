// `payctl invoices ...`: the built binary against a real server.

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { okJson as json, runCli, useCliServer } from './cli-harness.js';

const COMMANDS = [
  'invoices:list', 'invoices:get', 'invoices:create', 'invoices:send', 'invoices:remind', 'invoices:cancel', 'invoices:delete',
  'invoices:record-payment', 'invoices:refund', 'invoices:search', 'invoices:qr',
  'templates:list', 'templates:get', 'templates:create', 'templates:update', 'templates:delete',
];

const server = useCliServer(COMMANDS, 'payctl-invoices-cli-', { setUpTimeoutMs: 180_000 });

const cli = server.cli;


async function newInvoice(...extra: string[]): Promise<{ id: string; detail: { invoice_number: string } }> {
  return json(await cli('invoices', 'create', '--recipient', 'ada@example.com', '--item', 'Consulting:2:50.00', '--json', ...extra));
}

describe('payctl invoices create / get', { timeout: 120_000 }, () => {
  it('creates from flags; --json prints the API resource; totals are the server\'s', async () => {
    const invoice = json(await cli('invoices', 'create', '--recipient', 'ada@example.com', '--item', 'Mat: blue:2:10.00', '--item', 'Strap:1.5:3.33', '--tax', 'VAT:8.25', '--due', 'NET_30', '--json'));
    expect(invoice.status).toBe('DRAFT');
    expect(invoice.items.map((item: { name: string }) => item.name)).toEqual(['Mat: blue', 'Strap']);
    // 20.00 + 5.00 (4.995) + tax 1.65 + 0.41 = 27.06
    expect(invoice.amount.value).toBe('27.06');
    expect(invoice.detail.payment_term.term_type).toBe('NET_30');
    const got = await cli('invoices', 'get', invoice.id);
    expect(got.code, got.stderr).toBe(0);
    expect(got.stdout).toContain(`ID\t${invoice.id}`);
    expect(got.stdout).toContain('Status\tDRAFT');
    expect(got.stdout).toContain('Recipient\tada@example.com');
    expect(got.stdout).toContain('Item\tQty\tUnit price\tDiscount\tTax');
    expect(got.stdout).toContain('Mat: blue\t2\t10.00 USD\t\t8.25% 1.65 USD');
    expect(got.stdout).toContain('Total\t27.06 USD');
    expect(got.stdout).toContain('Due\t27.06 USD');
  });

  it('sends typed decimals in the canonical form the server wants (02 -> 2, .50 -> 0.50)', async () => {
    const result = await cli('invoices', 'create', '--recipient', 'ada@example.com', '--item', 'Tea:02:.50', '--json');
    expect(result.code, result.stderr).toBe(0);
    const invoice = json(result);
    expect(invoice.items[0]).toMatchObject({ quantity: '2', unit_amount: { currency_code: 'USD', value: '0.50' } });
    expect(invoice.amount.value).toBe('1.00');
  });

  it('creates from a JSON file, and from a template', async () => {
    const file = join(server.dir, 'invoice.json');
    writeFileSync(file, JSON.stringify({ detail: { currency_code: 'JPY' }, items: [{ name: 'Tea', quantity: '3', unit_amount: { currency_code: 'JPY', value: '333' } }] }));
    const fromFile = json(await cli('invoices', 'create', '--file', file, '--json'));
    expect(fromFile.amount).toMatchObject({ currency_code: 'JPY', value: '999' });
    const template = json(await cli('templates', 'create', '--name', 'Euro consulting', '--currency', 'EUR', '--terms', 'NET_15', '--note', 'Danke', '--json'));
    const fromTemplate = json(await cli('invoices', 'create', '--template', template.id, '--recipient', 'b@example.com', '--item', 'Hours:3:80.00', '--json'));
    expect(fromTemplate.detail).toMatchObject({ currency_code: 'EUR', note: 'Danke', payment_term: { term_type: 'NET_15' } });
    expect(fromTemplate.configuration.template_id).toBe(template.id);
    expect(fromTemplate.amount.value).toBe('240.00');
  });

  it('refuses bad flags before sending anything (exit 2)', async () => {
    const before = (await server.harness.request('GET', '/v2/invoicing/invoices?total_required=true')).body.total_items;
    for (const args of [
      ['--item', 'NoPrice:2'],
      ['--item', 'Thing:1:1.001'],
      ['--item', 'Thing:1:100', '--currency', 'JPY', '--due', 'someday'],
      ['--recipient', 'x@example.com'],
    ]) {
      const result = await cli('invoices', 'create', ...args);
      expect([args, result.code]).toEqual([args, 2]);
      expect(result.stdout).toBe('');
    }
    const after = (await server.harness.request('GET', '/v2/invoicing/invoices?total_required=true')).body.total_items;
    expect(after).toBe(before);
  });

  it('a server refusal maps to its exit code: unknown invoice 3, duplicate number 5', async () => {
    const missing = await cli('invoices', 'get', 'INV2-NOPE', '--json');
    expect(missing.code).toBe(3);
    expect(missing.stdout).toBe('');
    expect(JSON.parse(missing.stderr).name).toBe('RESOURCE_NOT_FOUND');
    await newInvoice('--number', 'CLI-DUP');
    const dup = await cli('invoices', 'create', '--recipient', 'a@example.com', '--item', 'X:1:1.00', '--number', 'CLI-DUP');
    expect(dup.code).toBe(5);
    expect(dup.stderr).toContain('DUPLICATE_INVOICE_NUMBER');
  });
});

describe('payctl invoices send / remind / record-payment / refund / cancel / delete', { timeout: 120_000 }, () => {
  it('runs an invoice through its life', async () => {
    const invoice = await newInvoice();
    const sent = await cli('invoices', 'send', invoice.id, '--subject', 'Invoice for you', '--cc', 'cc@example.com');
    expect(sent.code, sent.stderr).toBe(0);
    expect(sent.stdout).toContain('Result\tsent');
    // The payer link it prints opens the payer's view of this invoice.
    const payerLink = /Payer link\t(\S+)/.exec(sent.stdout)?.[1] ?? '';
    expect(payerLink).toBe(`${server.harness.url}/invoice/p/${invoice.id}`);
    const payerView = await fetch(payerLink);
    expect(payerView.status).toBe(200);
    expect(await payerView.text()).toContain(`Invoice ${invoice.detail.invoice_number}`);
    const outbox = await server.harness.request('GET', `/_payctl/outbox?invoice_id=${invoice.id}`);
    expect(outbox.body.messages.map((m: { to: string }) => m.to).sort()).toEqual(['ada@example.com', 'cc@example.com']);

    const reminded = json(await cli('invoices', 'remind', invoice.id, '--json'));
    expect(reminded).toEqual({ id: invoice.id, reminded: true });

    // Money-moving commands need --yes without a terminal.
    const unconfirmed = await cli('invoices', 'record-payment', invoice.id, '--method', 'CASH', '--amount', '60.00');
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toContain('--yes');
    const payment = json(await cli('invoices', 'record-payment', invoice.id, '--method', 'CASH', '--amount', '60.00', '--yes', '--json'));
    expect(payment.payment_id).toMatch(/^[0-9A-Za-z_-]{1,22}$/);
    const over = await cli('invoices', 'record-payment', invoice.id, '--method', 'CASH', '--amount', '40.01', '--yes');
    expect(over.code).toBe(5);
    expect(over.stderr).toContain('PAYMENT_AMOUNT_GREATER_THAN_AMOUNT_DUE');
    json(await cli('invoices', 'record-payment', invoice.id, '--method', 'CHECK', '--yes', '--json'));

    const refund = json(await cli('invoices', 'refund', invoice.id, '--method', 'CASH', '--amount', '25.00', '--date', '2025-03-02', '--yes', '--json'));
    expect(Object.keys(refund)).toEqual(['refund_id']);
    const tooMuch = await cli('invoices', 'refund', invoice.id, '--method', 'CASH', '--amount', '75.01', '--yes', '--json');
    expect(tooMuch.code).toBe(5);
    expect(JSON.parse(tooMuch.stderr).details[0].issue).toBe('INVALID_REFUND_AMOUNT');
    const badMethod = await cli('invoices', 'refund', invoice.id, '--method', 'PAYPAL', '--yes');
    expect(badMethod.code).toBe(2);
    const badAmount = await cli('invoices', 'refund', invoice.id, '--method', 'CASH', '--amount', '1.001', '--yes');
    expect(badAmount.code).toBe(2);
    expect(badAmount.stderr).toContain('--amount');

    const shown = await cli('invoices', 'get', invoice.id);
    expect(shown.stdout).toContain('Status\tPARTIALLY_REFUNDED');
    expect(shown.stdout).toContain('Paid\t100.00 USD');
    expect(shown.stdout).toContain('Refunded\t25.00 USD');
    expect(shown.stdout).toMatch(/refund\t\S+\t2025-03-02\tCASH\t25.00 USD/);

    const cannotCancel = await cli('invoices', 'cancel', invoice.id, '--yes');
    expect(cannotCancel.code).toBe(5);
    expect(cannotCancel.stderr).toContain('CANNOT_CANCEL_REFUNDED_INVOICE');
  });

  it('cancel and delete: confirmations, results and refusals', async () => {
    const draft = await newInvoice();
    expect((await cli('invoices', 'delete', draft.id)).code).toBe(2);
    expect(json(await cli('invoices', 'delete', draft.id, '--yes', '--json'))).toEqual({ id: draft.id, deleted: true });
    const other = await newInvoice();
    expect((await cli('invoices', 'send', other.id)).code).toBe(0);
    const notDeleted = await cli('invoices', 'delete', other.id, '--yes');
    expect(notDeleted.code).toBe(5);
    expect(notDeleted.stderr).toContain('CANNOT_DELETE_INVOICE');
    expect(json(await cli('invoices', 'cancel', other.id, '--yes', '--json'))).toEqual({ id: other.id, cancelled: true });
    expect((await server.harness.request('GET', `/v2/invoicing/invoices/${other.id}`)).body.status).toBe('CANCELLED');
  });

  it('qr writes a PNG file', async () => {
    const invoice = await newInvoice();
    await cli('invoices', 'send', invoice.id);
    const output = join(server.dir, 'qr.png');
    const result = json(await cli('invoices', 'qr', invoice.id, '--output', output, '--width', '200', '--json'));
    const png = readFileSync(output);
    expect(result).toEqual({ id: invoice.id, output, bytes: png.length });
    expect(png.subarray(0, 4)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    expect(png.readUInt32BE(16)).toBe(200);
    const draft = await newInvoice();
    const refused = await cli('invoices', 'qr', draft.id, '--output', output);
    expect(refused.code).toBe(5);
  });
});

describe('payctl invoices list / search', { timeout: 120_000 }, () => {
  it('lists a page as a table (TSV when piped) and --all as NDJSON when piped', async () => {
    const fresh = await server.harness.createMerchant();
    const freshEnv = { ...server.env, PAYCTL_CLIENT_ID: fresh.client_id, PAYCTL_CLIENT_SECRET: fresh.client_secret, PAYCTL_CONFIG_DIR: mkdtempSync(join(server.dir, 'fresh-')) };
    const run = (...args: string[]) => runCli(args, { env: freshEnv });
    const ids: string[] = [];
    // Made through the API: the CLI's create is tested above, and each run of the binary costs a second or two.
    for (let i = 0; i < 5; i += 1) {
      const created = await server.harness.request('POST', '/v2/invoicing/invoices', {
        token: fresh.token,
        body: {
          detail: { currency_code: 'USD' },
          primary_recipients: [{ billing_info: { email_address: `p${i}@example.com` } }],
          items: [{ name: 'Thing', quantity: '1', unit_amount: { currency_code: 'USD', value: `${i + 1}.00` } }],
        },
      });
      ids.push(created.body.id);
    }
    const table = await run('invoices', 'list', '--page-size', '2');
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trim().split('\n');
    expect(lines[0]).toBe('Number\tID\tRecipient\tStatus\tTotal\tDue\tDue date');
    expect(lines.slice(1).map((line) => line.split('\t')[1])).toEqual([ids[4], ids[3]]);
    expect(lines[1]).toContain('p4@example.com\tDRAFT\t5.00 USD\t5.00 USD');

    const page = json(await run('invoices', 'list', '--page', '2', '--page-size', '2', '--json'));
    expect(page.items.map((i: { id: string }) => i.id)).toEqual([ids[2], ids[1]]);

    const all = await run('invoices', 'list', '--all', '--page-size', '2', '--json');
    expect(all.code, all.stderr).toBe(0);
    const streamed = all.stdout.trim().split('\n').map((line) => JSON.parse(line) as { id: string });
    expect(streamed.map((invoice) => invoice.id)).toEqual([...ids].reverse());

    await server.harness.request('POST', `/v2/invoicing/invoices/${ids[0]}/send`, { token: fresh.token, body: {} });
    const sentOnly = json(await run('invoices', 'list', '--status', 'SENT', '--json'));
    expect(sentOnly.items.map((i: { id: string }) => i.id)).toEqual([ids[0]]);

    const found = json(await run('invoices', 'search', '--recipient-email', 'p3@example.com', '--json'));
    expect(found.items.map((i: { id: string }) => i.id)).toEqual([ids[3]]);
    const ranged = await run('invoices', 'search', '--min-total', '2', '--max-total', '3.00', '--currency', 'USD', '--total');
    expect(ranged.stdout.trim().split('\n')).toHaveLength(3);
    expect(ranged.stderr).toContain('2 invoices in 1 pages');

    const badPage = await run('invoices', 'list', '--page-size', '101');
    expect(badPage.code).toBe(2);
  });
});
