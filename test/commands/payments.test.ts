// `payctl payments ...` and `payctl sandbox approve`: the built binary against a real server.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type CliResult, okJson as json, useCliServer } from './cli-harness.js';

const server = useCliServer(
  [
    'payments:authorize',
    'payments:capture',
    'payments:void',
    'payments:reauthorize',
    'payments:refund',
    'payments:get',
    'sandbox:approve',
  ],
  'payctl-payments-cli-',
  { setUpTimeoutMs: 180_000 },
);

const payctl = server.cli;


/** `label<TAB>value` lines of a detail view printed to a pipe. */
function detail(result: CliResult): Map<string, string[]> {
  expect(result.code, result.stderr).toBe(0);
  const rows = new Map<string, string[]>();
  for (const line of result.stdout.trim().split('\n')) {
    const [label = '', value = ''] = line.split('\t');
    rows.set(label, [...(rows.get(label) ?? []), value]);
  }
  return rows;
}

async function authorized(amount = '100.00', currency = 'USD'): Promise<string> {
  return json(await payctl('payments', 'authorize', '--amount', amount, '--currency', currency, '--json')).id as string;
}

describe('payments authorize, capture, get', () => {
  it('authorizes, captures in parts and shows what is left and the history', async () => {
    const authId = await authorized();
    const first = json(await payctl('payments', 'capture', authId, '--amount', '30.00', '--yes', '--json'));
    expect(first).toMatchObject({ status: 'COMPLETED', amount: { currency_code: 'USD', value: '30.00' }, final_capture: false });
    // --json prints exactly the API's capture.
    const api = await server.harness.request('GET', `/v2/payments/captures/${first.id}`);
    expect(first).toEqual(api.body);

    const view = detail(await payctl('payments', 'get', 'authorization', authId));
    expect(view.get('Status')).toEqual(['PARTIALLY_CAPTURED']);
    expect(view.get('Amount')).toEqual(['100.00 USD']);
    expect(view.get('Captured')).toEqual(['30.00 USD']);
    expect(view.get('Capturable')).toEqual(['70.00 USD']);
    expect(view.get('History')).toHaveLength(2);
    expect(view.get('History')?.[1]).toContain(first.id);

    const rest = detail(await payctl('payments', 'capture', authId, '--final', '--invoice-id', 'CLI-INV-1', '--yes'));
    expect(rest.get('Status')).toEqual(['COMPLETED']);
    expect(rest.get('Amount')).toEqual(['70.00 USD']);
    expect(rest.get('Fee')).toEqual(['2.93 USD']);
    expect(rest.get('Net')).toEqual(['67.07 USD']);
    expect(rest.get('Invoice id')).toEqual(['CLI-INV-1']);
  });

  it('refuses a capture over the limit with exit 5 and the issue on stderr, stdout empty', async () => {
    const authId = await authorized('10.00');
    const result = await payctl('payments', 'capture', authId, '--amount', '11.51', '--yes');
    expect(result.code).toBe(5);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('UNPROCESSABLE_ENTITY');
    expect(result.stderr).toContain('MAX_CAPTURE_AMOUNT_EXCEEDED');
    const asJson = await payctl('payments', 'capture', authId, '--amount', '11.51', '--yes', '--json');
    expect(asJson.code).toBe(5);
    expect(JSON.parse(asJson.stderr)).toMatchObject({ name: 'UNPROCESSABLE_ENTITY', details: [{ issue: 'MAX_CAPTURE_AMOUNT_EXCEEDED' }] });
  });

  it('needs --yes without a terminal (exit 2), and checks amounts before calling (exit 2)', async () => {
    const authId = await authorized('10.00');
    const noYes = await payctl('payments', 'capture', authId);
    expect(noYes.code).toBe(2);
    expect(noYes.stderr).toContain('--yes');
    const badAmount = await payctl('payments', 'capture', authId, '--amount', '1.001', '--yes');
    expect(badAmount.code).toBe(2);
    const jpyDecimals = await payctl('payments', 'capture', await authorized('1000', 'JPY'), '--amount', '1.5', '--yes');
    expect(jpyDecimals.code).toBe(2);
    expect(jpyDecimals.stderr).toContain('JPY');
    const missing = await payctl('payments', 'get', 'capture', 'NOSUCHCAPTURE0000');
    expect(missing.code).toBe(3);
  });

  it('replays a capture with the same --request-id instead of capturing twice', async () => {
    const authId = await authorized('50.00');
    const a = json(await payctl('payments', 'capture', authId, '--amount', '5.00', '--request-id', 'cli-cap-1', '--yes', '--json'));
    const b = json(await payctl('payments', 'capture', authId, '--amount', '5.00', '--request-id', 'cli-cap-1', '--yes', '--json'));
    expect(b.id).toBe(a.id);
    const view = detail(await payctl('payments', 'get', 'authorization', authId));
    expect(view.get('Captured')).toEqual(['5.00 USD']);
  });
});

describe('payments void and reauthorize', () => {
  it('voids (exit 0), then refuses a second void with exit 5', async () => {
    const authId = await authorized('20.00');
    const voided = json(await payctl('payments', 'void', authId, '--yes', '--json'));
    expect(voided.status).toBe('VOIDED');
    const again = await payctl('payments', 'void', authId, '--yes');
    expect(again.code).toBe(5);
    expect(again.stderr).toContain('PREVIOUSLY_VOIDED');
  });

  it('reauthorizes after the honour period (sandbox clock advance)', async () => {
    const authId = await authorized('20.00');
    const early = await payctl('payments', 'reauthorize', authId, '--amount', '20.00');
    expect(early.code).toBe(5);
    const advanced = await payctl('sandbox', 'clock', 'advance', '4d', '--json');
    expect(advanced.code, advanced.stderr).toBe(0);
    const renewed = json(await payctl('payments', 'reauthorize', authId, '--amount', '22.00', '--json'));
    expect(renewed).toMatchObject({ status: 'CREATED', amount: { value: '22.00', currency_code: 'USD' } });
    expect(renewed.supplementary_data.related_ids.authorization_id).toBe(authId);
  });
});

describe('payments refund', () => {
  async function captured(amount = '40.00'): Promise<string> {
    const authId = await authorized(amount);
    return json(await payctl('payments', 'capture', authId, '--yes', '--json')).id as string;
  }

  it('refunds part, then the rest; get capture shows refunded, refundable and history', async () => {
    const captureId = await captured();
    const part = json(await payctl('payments', 'refund', captureId, '--amount', '15.00', '--note', 'Damaged', '--invoice-id', 'CLI-RF-1', '--yes', '--json'));
    expect(part).toMatchObject({ status: 'COMPLETED', amount: { value: '15.00' }, note_to_payer: 'Damaged', invoice_id: 'CLI-RF-1' });
    const view = detail(await payctl('payments', 'get', 'capture', captureId));
    expect(view.get('Status')).toEqual(['PARTIALLY_REFUNDED']);
    expect(view.get('Refunded')).toEqual(['15.00 USD']);
    expect(view.get('Refundable')).toEqual(['25.00 USD']);
    expect(view.get('History')?.[1]).toContain(part.id);
    const rest = detail(await payctl('payments', 'refund', captureId, '--yes'));
    expect(rest.get('Amount')).toEqual(['25.00 USD']);
    expect(rest.get('Total refunded')).toEqual(['40.00 USD']);
    const refundView = detail(await payctl('payments', 'get', 'refund', part.id));
    expect(refundView.get('Capture')).toEqual([captureId]);
    expect(refundView.get('Note to payer')).toEqual(['Damaged']);
    const more = await payctl('payments', 'refund', captureId, '--amount', '0.01', '--yes');
    expect(more.code).toBe(5);
    expect(more.stderr).toContain('CAPTURE_FULLY_REFUNDED');
  });

  it('asks for --yes without a terminal, naming the refund it would make', async () => {
    const captureId = await captured('12.00');
    const result = await payctl('payments', 'refund', captureId, '--amount', '2.00');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`Refund 2.00 of capture ${captureId}`);
    expect(result.stderr).toContain('--yes');
  });

  it('--from-file refunds each row once, prints one line per row, and replays on a re-run', async () => {
    const a = await captured('30.00');
    const b = await captured('10.00');
    const file = join(server.dir, 'refunds.csv');
    writeFileSync(
      file,
      ['capture_id,amount,currency,note', `${a},10.00,USD,"Late, sorry"`, `${b},,,`, `${a},50.00,USD,too much`, 'NOSUCHCAPTURE0000,1.00,USD,'].join('\n'),
    );
    const first = await payctl('payments', 'refund', '--from-file', file, '--yes', '--json');
    expect(first.code).toBe(5);
    const lines = first.stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(lines.map((line) => [line.row, line.status])).toEqual([
      [1, 'COMPLETED'],
      [2, 'COMPLETED'],
      [3, 'FAILED'],
      [4, 'FAILED'],
    ]);
    expect(lines[1].amount).toBe('10.00 USD');
    expect(lines[2].error.details[0].issue).toBe('REFUND_AMOUNT_EXCEEDED');
    expect(lines[3].error.name).toBe('RESOURCE_NOT_FOUND');
    expect(first.stderr).toContain('2 of 4');

    const again = await payctl('payments', 'refund', '--from-file', file, '--yes');
    expect(again.code).toBe(5);
    const table = again.stdout.trim().split('\n').map((line) => line.split('\t'));
    expect(table[0]).toEqual(['Row', 'Capture', 'Status', 'Refund', 'Amount', 'Error']);
    expect(table[1]?.[3]).toBe(lines[0].refund_id);
    expect(table[2]?.[3]).toBe(lines[1].refund_id);
    expect(table[3]?.[5]).toBe('UNPROCESSABLE_ENTITY: REFUND_AMOUNT_EXCEEDED');
    const refundsOfA = await server.harness.server.db.selectFrom('refunds').select('amount_minor').where('capture_id', '=', a).execute();
    expect(refundsOfA).toEqual([{ amount_minor: 1000n }]);
    const note = (await server.harness.request('GET', `/v2/payments/refunds/${lines[0].refund_id}`)).body.note_to_payer;
    expect(note).toBe('Late, sorry');
  });

  it('--from-file with every row good exits 0; a file without capture_id is a usage error', async () => {
    const a = await captured('5.00');
    const good = join(server.dir, 'good.csv');
    writeFileSync(good, `capture_id,amount,currency,note\r\n${a},1.00,USD,\r\n`);
    const result = await payctl('payments', 'refund', '--from-file', good, '--yes');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(2);
    const bad = join(server.dir, 'bad.csv');
    writeFileSync(bad, 'id,amount\nX,1.00\n');
    const refused = await payctl('payments', 'refund', '--from-file', bad, '--yes');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('capture_id');
  });
});

describe('sandbox approve', () => {
  it('approves an order waiting for its payer; an unknown order exits 3', async () => {
    const created = await server.harness.request('POST', '/v2/checkout/orders', {
      body: { intent: 'CAPTURE', purchase_units: [{ amount: { currency_code: 'EUR', value: '8.00' } }] },
    });
    const approved = json(await payctl('sandbox', 'approve', created.body.id, '--json'));
    expect(approved.status).toBe('APPROVED');
    const shown = detail(await payctl('sandbox', 'approve', created.body.id));
    expect(shown.get('Amount')).toEqual(['8.00 EUR']);
    const missing = await payctl('sandbox', 'approve', 'NOSUCHORDER00000');
    expect(missing.code).toBe(3);
  });
});
