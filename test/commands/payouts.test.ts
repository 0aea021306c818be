// `payctl payouts`: the built binary against the real server, with CSV and JSON files.

import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../helpers/server.js';
import { type CliResult, runCli, useCliServer } from './cli-harness.js';

// Jobs every 100 ms: batches settle quickly while the CLI waits.
const server = useCliServer(
  [
    'payouts:create',
    'payouts:get',
    'payouts:item:get',
    'payouts:item:cancel',
  ],
  'payctl-cli-payouts-',
  { server: { memory: true, config: { jobIntervalMs: 100 } }, configSubdir: 'config' },
);

beforeAll(async () => {
  await server.harness.createMerchant('bob@example.com');
  const topUp = await server.harness.request('POST', '/_payctl/balances', { body: { currency: 'USD', value: '10000.00' } });
  expect(topUp.status).toBe(200);
});

function file(name: string, content: string): string {
  const path = join(server.dir, name);
  writeFileSync(path, content);
  return path;
}

function json<T = any>(result: CliResult): T {
  try {
    return JSON.parse(result.stdout) as T;
  } catch {
    throw new Error(`stdout is not JSON (exit ${result.code}):\n${result.stdout}\nstderr:\n${result.stderr}`);
  }
}

async function batchCount(): Promise<number> {
  const rows = await server.harness.server.db.selectFrom('payout_batches').select('id').execute();
  return rows.length;
}

const CSV = [
  'receiver,amount,currency,note,sender_item_id',
  'bob@example.com,10.00,USD,"Thanks, Bob",row-1',
  'nobody@example.com,2.50,usd,,row-2',
  'blocked@example.com,1,USD,ERRPYO025,row-3',
  '',
].join('\n');

describe('payctl payouts create', () => {
  let csvPath: string;
  let batchId: string;

  it('sends a CSV file whole, with a sender_batch_id derived from its content', async () => {
    csvPath = file('payouts.csv', CSV);
    const result = await server.cli('payouts', 'create', '--file', csvPath, '--yes', '--json');
    expect(result.code, result.stderr).toBe(0);
    const created = json(result);
    const hash = createHash('sha256').update(CSV).digest('hex');
    expect(created.batch_header).toMatchObject({ batch_status: 'PENDING', sender_batch_header: { sender_batch_id: `payctl-${hash.slice(0, 40)}` } });
    batchId = created.batch_header.payout_batch_id;
    const items = await server.harness.server.db
      .selectFrom('payout_items')
      .select(['receiver', 'amount_minor', 'currency', 'recipient_type', 'detail'])
      .where('batch_id', '=', batchId)
      .orderBy('position')
      .execute();
    expect(items.map((item) => [item.receiver, item.amount_minor, item.currency, item.recipient_type])).toEqual([
      ['bob@example.com', 1000n, 'USD', 'EMAIL'],
      ['nobody@example.com', 250n, 'USD', 'EMAIL'],
      ['blocked@example.com', 100n, 'USD', 'EMAIL'],
    ]);
    expect(JSON.parse(items[0]!.detail)).toMatchObject({ note: 'Thanks, Bob', sender_item_id: 'row-1' });
  });

  it('refuses to send the same file twice, naming the earlier batch (exit 2)', async () => {
    const before = await batchCount();
    const result = await server.cli('payouts', 'create', '--file', csvPath, '--yes');
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('USER_BUSINESS_ERROR');
    expect(result.stderr).toContain(batchId);
    expect(await batchCount()).toBe(before);
  });

  it('does not prompt without a terminal: exit 2 naming --yes, nothing sent', async () => {
    const before = await batchCount();
    const result = await server.cli('payouts', 'create', '--file', file('other.csv', 'receiver,amount,currency\nx@example.com,1.00,USD\n'));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--yes');
    expect(result.stderr).toMatch(/Pay 1 payout totalling 1\.00 USD/);
    expect(await batchCount()).toBe(before);
  });

  it('names every bad CSV row and sends nothing (exit 2)', async () => {
    const before = await batchCount();
    const bad = file(
      'bad.csv',
      [
        'receiver,amount,currency,recipient_type',
        'ok@example.com,1.00,USD,',
        'not-an-email,1.00,USD,',
        'z@example.com,1.001,USD,',
        ',5.00,USD,',
        'j@example.com,1.5,JPY,',
        'p@example.com,1.00,XYZ,',
        'q@example.com,0,USD,',
        'r@example.com,1.00,USD,FAX',
      ].join('\n'),
    );
    const result = await server.cli('payouts', 'create', '--file', bad, '--yes');
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    for (const expected of [
      /line 3: receiver "not-an-email" is not an e-mail address/,
      /line 4: amount USD takes at most 2 decimals/,
      /line 5: receiver is missing/,
      /line 6: amount JPY does not take decimals/,
      /line 7: currency XYZ is not supported/,
      /line 8: amount "0" must be greater than zero/,
      /line 9: recipient_type "FAX"/,
      /7 problems, nothing was sent/,
    ]) {
      expect(result.stderr).toMatch(expected);
    }
    expect(result.stderr).not.toMatch(/line 2:/);
    expect(await batchCount()).toBe(before);
  });

  it('refuses an unknown CSV column', async () => {
    const result = await server.cli('payouts', 'create', '--file', file('columns.csv', 'receiver,amout,currency\na@example.com,1,USD\n'), '--yes');
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown column "amout"/);
    expect(result.stderr).toMatch(/no "amount" column/);
  });

  it('sends the API JSON form, keeping its sender_batch_id unless --sender-batch-id is given', async () => {
    const body = {
      sender_batch_header: { sender_batch_id: 'json-batch-1', email_subject: 'You have money' },
      items: [
        { recipient_type: 'EMAIL', receiver: 'bob@example.com', amount: { currency: 'USD', value: '3.00' }, sender_item_id: 'j-1' },
        { recipient_type: 'EMAIL', receiver: 'carol@example.com', amount: { currency: 'EUR', value: '4.00' } },
      ],
    };
    const path = file('batch.json', JSON.stringify(body));
    const result = await server.cli('payouts', 'create', '--file', path, '--yes', '--json');
    expect(result.code, result.stderr).toBe(0);
    expect(json(result).batch_header.sender_batch_header).toEqual({ sender_batch_id: 'json-batch-1', email_subject: 'You have money' });
    const overridden = await server.cli('payouts', 'create', '--file', path, '--sender-batch-id', 'json-batch-2', '--yes', '--json');
    expect(overridden.code, overridden.stderr).toBe(0);
    expect(json(overridden).batch_header.sender_batch_header.sender_batch_id).toBe('json-batch-2');
  });

  it('names every bad JSON item by its index', async () => {
    const path = file(
      'bad.json',
      JSON.stringify([
        { receiver: 'a@example.com', amount: { currency: 'USD', value: '1.00' } },
        { receiver: 'b@example.com', amount: '1.00' },
        { receiver: 'c@example.com', amount: { currency: 'USD', value: '-2' }, amout: 1 },
      ]),
    );
    const result = await server.cli('payouts', 'create', '--file', path, '--yes', '--json');
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    const report = JSON.parse(result.stderr) as { name: string; message: string };
    expect(report.name).toBe('USAGE_ERROR');
    expect(report.message).toMatch(/items\[1\]: amount must be/);
    expect(report.message).toMatch(/items\[2\]: unknown field "amout"/);
    expect(report.message).toMatch(/items\[2\]: amount "-2" must be greater than zero/);
    expect(report.message).not.toMatch(/items\[0\]/);
  });
});

describe('payctl payouts get and item', () => {
  let batchId: string;

  beforeAll(async () => {
    const result = await server.cli('payouts', 'create', '--file', file('wait.csv', CSV.replace('row-1', 'w-1')), '--yes', '--json');
    expect(result.code, result.stderr).toBe(0);
    batchId = json(result).batch_header.payout_batch_id;
  });

  it('--wait polls until the batch is done, progress on stderr, the API JSON on stdout', async () => {
    const result = await server.cli('payouts', 'get', batchId, '--wait', '--timeout', '30s', '--json');
    expect(result.code, result.stderr).toBe(0);
    const batch = json(result);
    expect(batch.batch_header).toMatchObject({ payout_batch_id: batchId, batch_status: 'SUCCESS', amount: { currency: 'USD', value: '13.50' } });
    expect(batch.total_items).toBe(3);
    expect(batch.items.map((item: any) => item.transaction_status)).toEqual(['SUCCESS', 'UNCLAIMED', 'BLOCKED']);
    expect(result.stderr).toMatch(/SUCCESS: 3\/3 items settled/);
  });

  it('shows the header and an items table (TSV when piped)', async () => {
    const result = await server.cli('payouts', 'get', batchId);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^Batch id\\t${batchId}$`, 'm'));
    expect(result.stdout).toMatch(/^Status\tSUCCESS$/m);
    expect(result.stdout).toMatch(/^Item id\tStatus\tReceiver\tAmount\tFee\tSender item id\tError$/m);
    expect(result.stdout).toMatch(/\tUNCLAIMED\tnobody@example\.com\t2\.50 USD\t0\.05 USD\trow-2\tRECEIVER_UNREGISTERED$/m);
    expect(result.stdout).toMatch(/\tBLOCKED\tblocked@example\.com\t1\.00 USD\t0\.00 USD\trow-3\tREGULATORY_BLOCKED$/m);
  });

  it('shows and cancels an UNCLAIMED item, and refuses to cancel it twice (exit 5)', async () => {
    const batch = await server.harness.request('GET', `/v1/payments/payouts/${batchId}`);
    const unclaimed = batch.body.items[1].payout_item_id as string;
    const shown = await server.cli('payouts', 'item', 'get', unclaimed, '--json');
    expect(shown.code, shown.stderr).toBe(0);
    expect(json(shown)).toMatchObject({ payout_item_id: unclaimed, transaction_status: 'UNCLAIMED', payout_batch_id: batchId });

    const noYes = await server.cli('payouts', 'item', 'cancel', unclaimed);
    expect(noYes.code).toBe(2);
    expect(noYes.stderr).toContain('--yes');

    const cancelled = await server.cli('payouts', 'item', 'cancel', unclaimed, '--yes', '--json');
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(json(cancelled)).toMatchObject({ payout_item_id: unclaimed, transaction_status: 'RETURNED' });

    const again = await server.cli('payouts', 'item', 'cancel', unclaimed, '--yes');
    expect(again.code).toBe(5);
    expect(again.stdout).toBe('');
    expect(again.stderr).toContain('ITEM_INCORRECT_STATUS');
  });

  it('exits 3 for unknown batches and items', async () => {
    expect((await server.cli('payouts', 'get', 'NOSUCHBATCH00')).code).toBe(3);
    expect((await server.cli('payouts', 'item', 'get', 'NOSUCHITEM')).code).toBe(3);
  });
});

describe('payctl payouts get --wait timeout', () => {
  it('exits 8 when the batch is not done in time', async () => {
    // A server whose jobs do not run during the test: the batch stays PENDING.
    const idle = await startTestServer({ memory: true, config: { jobIntervalMs: 3_600_000 } });
    try {
      const created = await idle.request('POST', '/v1/payments/payouts', {
        body: { sender_batch_header: { recipient_type: 'EMAIL' }, items: [{ receiver: 'a@example.com', amount: { currency: 'USD', value: '1.00' } }] },
      });
      const id = created.body.batch_header.payout_batch_id as string;
      const creds = idle.server.defaultCredentials;
      const result = await runCli(['payouts', 'get', id, '--wait', '--timeout', '1s'], {
        env: { ...server.env, PAYCTL_BASE_URL: idle.url, PAYCTL_CLIENT_ID: creds.client_id, PAYCTL_CLIENT_SECRET: creds.client_secret },
      });
      expect(result.code).toBe(8);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/PENDING: 0\/1 items settled/);
      expect(result.stderr).toContain(`payout batch ${id} is still PENDING after 1s`);
    } finally {
      await idle.close();
    }
  });
});
