// payctl orders track, update-tracker, get and update: the built binary against a real server.

import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { FULL } from '../server/payments-helpers.js';
import { okJson as json, useCliServer } from './cli-harness.js';
import { runInPty } from './pty.js';

const server = useCliServer(['orders:track', 'orders:update-tracker', 'orders:get', 'orders:update'], 'payctl-orders-cli-');
const cli = server.cli;

/** A captured CAPTURE order (card, one unit with an item BOOT-1); its id and capture id. */
async function capturedOrder(): Promise<{ id: string; captureId: string }> {
  const m = (value: string) => ({ currency_code: 'USD', value });
  const created = await server.harness.request('POST', '/v2/checkout/orders', {
    body: {
      intent: 'CAPTURE',
      purchase_units: [{ amount: { ...m('25.00'), breakdown: { item_total: m('25.00') } }, items: [{ name: 'Boot', sku: 'BOOT-1', quantity: '1', unit_amount: m('25.00') }] }],
      payment_source: { card: { number: '4111111111111111', expiry: '2030-12' } },
    },
    headers: { 'service-request-id': randomUUID() },
  });
  const captured = await server.harness.request('POST', `/v2/checkout/orders/${created.body.id}/capture`, { headers: FULL });
  expect(captured.status, captured.text).toBe(201);
  return { id: created.body.id as string, captureId: captured.body.purchase_units[0].payments.captures[0].id as string };
}

describe('payctl orders track', () => {
  it("adds a tracker to the order's only capture: TSV row when piped, the order with --json", async () => {
    const { id, captureId } = await capturedOrder();
    const text = await cli('orders', 'track', id, '--tracking-number', '1Z999', '--carrier', 'ups', '--sku', 'BOOT-1');
    expect(text.code, text.stderr).toBe(0);
    const lines = text.stdout.trim().split('\n');
    expect(lines[0]).toBe('Tracker\tStatus\tUnit\tUpdated');
    expect(lines[1]?.split('\t').slice(0, 3)).toEqual([`${captureId}-1Z999`, 'SHIPPED', 'default']);

    const order = json(await cli('orders', 'track', id, '--capture-id', captureId, '--tracking-number', 'SECOND', '--carrier', 'OTHER', '--carrier-name-other', 'Courier', '--json'));
    expect(order.id).toBe(id);
    expect(order.purchase_units[0].shipping.trackers.map((tracker: { id: string }) => tracker.id)).toEqual([`${captureId}-1Z999`, `${captureId}-SECOND`]);
    expect(json(await cli('orders', 'track', id, '--tracking-number', 'X', '--carrier', 'UPS', '--json', '--request-id', 'same-1'))).toEqual(
      json(await cli('orders', 'track', id, '--tracking-number', 'X', '--carrier', 'UPS', '--json', '--request-id', 'same-1')),
    );
  });

  it('keeps the tracker id whole on an 80-column terminal, shortening the other columns', async () => {
    const { id, captureId } = await capturedOrder();
    const number = 'LONG-TRACKING-NUMBER-0123456789-ABCDEFGHIJ';
    const { code, screen } = await runInPty(['orders', 'track', id, '--tracking-number', number, '--carrier', 'UPS'], { env: server.env, columns: 80 }).done;
    expect(code, screen).toBe(0);
    const lines = screen.split('\n').filter((line) => line.trim() !== '');
    expect(lines[1], screen).toMatch(new RegExp(`^${captureId}-${number} `));
    for (const line of lines) expect([...line].length, line).toBeLessThanOrEqual(80);
  });

  it('exit codes: 5 for a refused sku, 3 for an unknown order, 2 for a missing flag, with nothing on stdout', async () => {
    const { id } = await capturedOrder();
    const refused = await cli('orders', 'track', id, '--tracking-number', 'T', '--carrier', 'UPS', '--sku', 'HAT', '--json');
    expect([refused.code, refused.stdout]).toEqual([5, '']);
    expect(JSON.parse(refused.stderr).details[0]).toMatchObject({ issue: 'ITEM_SKU_MISMATCH', field: '/items/0/sku' });
    const unknown = await cli('orders', 'track', 'NOSUCHORDER', '--tracking-number', 'T', '--carrier', 'UPS', '--capture-id', 'ABC');
    expect([unknown.code, unknown.stdout]).toEqual([3, '']);
    const missing = await cli('orders', 'track', id, '--carrier', 'UPS');
    expect([missing.code, missing.stdout]).toEqual([2, '']);
    expect(missing.stderr).toContain('tracking-number');
  });
});

describe('payctl orders update-tracker', () => {
  it('cancels with --yes, refuses without it when it cannot ask, and changes notify_payer', async () => {
    const { id, captureId } = await capturedOrder();
    await cli('orders', 'track', id, '--tracking-number', 'CANCEL1', '--carrier', 'DHL', '--json');
    const tracker = `${captureId}-CANCEL1`;

    const notified = await cli('orders', 'update-tracker', id, tracker, '--notify-payer');
    expect(notified.code, notified.stderr).toBe(0);
    expect(notified.stdout).toMatch(/^Status\tSHIPPED$/m);

    const unconfirmed = await cli('orders', 'update-tracker', id, tracker, '--status', 'CANCELLED');
    expect([unconfirmed.code, unconfirmed.stdout]).toEqual([2, '']);
    expect(unconfirmed.stderr).toContain('--yes');
    expect((await server.harness.request('GET', `/v2/checkout/orders/${id}`)).body.purchase_units[0].shipping.trackers[0].status).toBe('SHIPPED');

    const order = json(await cli('orders', 'update-tracker', id, tracker, '--status', 'CANCELLED', '--yes', '--json'));
    expect(order.purchase_units[0].shipping.trackers[0]).toMatchObject({ id: tracker, status: 'CANCELLED' });

    const final = await cli('orders', 'update-tracker', id, tracker, '--no-notify-payer', '--json');
    expect([final.code, final.stdout]).toEqual([5, '']);
    expect(JSON.parse(final.stderr).details[0].issue).toBe('NOT_PATCHABLE');
  });

  it('exit 2 with nothing to change, 3 for an unknown tracker', async () => {
    const { id } = await capturedOrder();
    const nothing = await cli('orders', 'update-tracker', id, 'T-1');
    expect([nothing.code, nothing.stdout]).toEqual([2, '']);
    expect(nothing.stderr).toContain('--status CANCELLED');
    const unknown = await cli('orders', 'update-tracker', id, 'NOPE-1', '--notify-payer', '--json');
    expect([unknown.code, unknown.stdout]).toEqual([3, '']);
    expect(JSON.parse(unknown.stderr).details[0].issue).toBe('TRACKER_ID_NOT_FOUND');
  });
});

describe('payctl orders get', () => {
  it('shows status, amount and trackers; --json is the API answer; exit 3 for an unknown order', async () => {
    const { id, captureId } = await capturedOrder();
    await cli('orders', 'track', id, '--tracking-number', 'SHOWN', '--carrier', 'USPS', '--json');
    const text = await cli('orders', 'get', id);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^Status\tCOMPLETED$/m);
    expect(text.stdout).toMatch(/^Amount\t25.00 USD$/m);
    expect(text.stdout).toContain(`${captureId}-SHOWN SHIPPED`);
    expect(json(await cli('orders', 'get', id, '--json'))).toEqual((await server.harness.request('GET', `/v2/checkout/orders/${id}`)).body);
    const unknown = await cli('orders', 'get', 'NOSUCHORDER');
    expect([unknown.code, unknown.stdout]).toEqual([3, '']);
  });
});

describe('payctl orders update', () => {
  it('adds then replaces the invoice id of an order not yet paid; refuses a completed order with exit 5', async () => {
    const created = await server.harness.request('POST', '/v2/checkout/orders', {
      body: { intent: 'CAPTURE', purchase_units: [{ amount: { currency_code: 'USD', value: '9.00' } }] },
    });
    const id = created.body.id as string;
    const text = await cli('orders', 'update', id, '--invoice-id', 'INV-1', '--description', 'Socks');
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^Invoice ID\tINV-1$/m);
    const order = json(await cli('orders', 'update', id, '--invoice-id', 'INV-2', '--json'));
    expect(order.purchase_units[0]).toMatchObject({ invoice_id: 'INV-2', description: 'Socks' });

    const nothing = await cli('orders', 'update', id);
    expect([nothing.code, nothing.stdout]).toEqual([2, '']);
    const wrongUnit = await cli('orders', 'update', id, '--reference-id', 'nope', '--custom-id', 'c');
    expect([wrongUnit.code, wrongUnit.stdout]).toEqual([2, '']);
    expect(wrongUnit.stderr).toContain('--reference-id');

    const { id: completed } = await capturedOrder();
    const refused = await cli('orders', 'update', completed, '--custom-id', 'late', '--json');
    expect([refused.code, refused.stdout]).toEqual([5, '']);
    expect(JSON.parse(refused.stderr).details[0].issue).toBe('ORDER_ALREADY_COMPLETED');
  });
});
