// `payctl sandbox seed`: the examples run twice from the built binary (the second run makes
// nothing), references, a failing step named with its line, a file checked before it runs.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type Merchant, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { REPO, ensureBuilt, okJson, runCli, serverEnv } from './cli-harness.js';

let harness: TestServer;
let dir: string;

beforeAll(async () => {
  ensureBuilt(['sandbox:seed']);
  harness = await startTestServer({ memory: true });
  dir = mkdtempSync(join(tmpdir(), 'payctl-cli-seed-'));
}, 120_000);

afterAll(async () => {
  await harness?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A merchant of its own for each test, so that its counts are its own. */
async function merchantEnv(email: string): Promise<{ merchant: Merchant; env: Record<string, string> }> {
  const merchant = await harness.createMerchant(email);
  const env = { ...serverEnv(harness, join(dir, 'config')), PAYCTL_CLIENT_ID: merchant.client_id, PAYCTL_CLIENT_SECRET: merchant.client_secret, PAYCTL_ADMIN_KEY: harness.adminKey };
  return { merchant, env };
}

const seed = (env: Record<string, string>, ...args: string[]) => runCli(['sandbox', 'seed', ...args], { env, timeoutMs: 60_000 });

/** Everything the merchant's account holds that a re-run could make twice. */
async function counts(merchant: Merchant): Promise<Record<string, unknown>> {
  const get = async (path: string) => {
    const result = await harness.request('GET', path, { token: merchant.token });
    expect(result.status, `${path}: ${result.text}`).toBe(200);
    return result.body;
  };
  const events = (await get('/v1/notifications/webhooks-events?page_size=300')).events as Array<{ event_type: string }>;
  return {
    events: events.length,
    event_types: events.map((event) => event.event_type).sort(),
    disputes: (await get('/v1/customer/disputes?page_size=50')).items.length,
    invoices: (await get('/v2/invoicing/invoices?page_size=100')).items.length,
    webhooks: (await get('/v1/notifications/webhooks')).webhooks.length,
    balances: await get('/_payctl/balances'),
    clock: (await get('/_payctl/clock')).offset_seconds,
  };
}

describe('the examples, each run twice', () => {
  it('shop.yaml: captures and refunds; the second run answers the same ids and changes nothing', async () => {
    const { merchant, env } = await merchantEnv('shop@example.com');
    const first = okJson(await seed(env, join(REPO, 'examples/shop.yaml'), '--json'));
    const after = await counts(merchant);
    const second = okJson(await seed(env, join(REPO, 'examples/shop.yaml'), '--json'));
    expect(await counts(merchant)).toEqual(after);

    const byStep = (run: any) => Object.fromEntries(run.steps.map((step: any) => [step.step, step.result]));
    const one = byStep(first);
    const two = byStep(second);
    expect(one.mug.status).toBe('COMPLETED');
    expect(one.mug.capture_id).toMatch(/\w+/);
    expect(one.lamp.authorization_id).toMatch(/\w+/);
    expect(one.lamp_shipped.status).toBe('COMPLETED');
    expect(one.mug_returned.status).toBe('COMPLETED');
    for (const step of ['mug', 'poster', 'lamp', 'lamp_shipped', 'poster_damaged', 'mug_returned', 'hooks']) expect(two[step].id).toBe(one[step].id);
    // References went where they point: the refund is of the mug's capture.
    const refund = await harness.request('GET', `/v2/payments/refunds/${one.mug_returned.id}`, { token: merchant.token });
    expect(refund.body.links.find((link: any) => link.rel === 'up').href).toContain(one.mug.capture_id);
    // The positive control: the first run did make things.
    expect(after.events).toBeGreaterThan(5);
    expect(after.webhooks).toBe(1);
  }, 120_000);

  it('disputes.yaml: one dispute at each stage, five in all after two runs', async () => {
    const { merchant, env } = await merchantEnv('disputes@example.com');
    const first = okJson(await seed(env, join(REPO, 'examples/disputes.yaml'), '--json'));
    const after = await counts(merchant);
    okJson(await seed(env, join(REPO, 'examples/disputes.yaml'), '--json'));
    expect(await counts(merchant)).toEqual(after);
    expect(after.disputes).toBe(5);
    const stages = Object.fromEntries(
      first.steps.filter((step: any) => step.kind === 'dispute').map((step: any) => [step.step, [step.result.dispute_life_cycle_stage, step.result.status]]),
    );
    expect(stages).toEqual({
      inquiry: ['INQUIRY', 'WAITING_FOR_SELLER_RESPONSE'],
      claim: ['CHARGEBACK', 'WAITING_FOR_SELLER_RESPONSE'],
      pre_arbitration: ['PRE_ARBITRATION', 'UNDER_REVIEW'],
      arbitration: ['ARBITRATION', 'UNDER_REVIEW'],
      settled: ['INQUIRY', 'RESOLVED'],
    });
  }, 120_000);

  it('invoices-month.yaml: five invoices over a month; the clock is not moved again', async () => {
    const { merchant, env } = await merchantEnv('studio@example.com');
    const first = okJson(await seed(env, join(REPO, 'examples/invoices-month.yaml'), '--json'));
    const after = await counts(merchant);
    const second = okJson(await seed(env, join(REPO, 'examples/invoices-month.yaml'), '--json'));
    expect(await counts(merchant)).toEqual(after);
    expect(after.invoices).toBe(5);
    expect(after.clock).toBe(30 * 86_400);
    const statuses = first.steps.filter((step: any) => step.kind === 'invoice').map((step: any) => step.result.status);
    expect(statuses).toEqual(['MARKED_AS_PAID', 'SENT', 'MARKED_AS_PAID', 'MARKED_AS_PAID', 'DRAFT']);
    // Invoices were dated along the month, on the account's clock.
    const dates = first.steps.filter((step: any) => step.kind === 'invoice').map((step: any) => step.result.detail.invoice_date);
    expect(new Set(dates).size).toBe(4);
    const invoiceIds = (run: any) => run.steps.filter((step: any) => step.kind === 'invoice').map((step: any) => step.result.id);
    expect(invoiceIds(second)).toEqual(invoiceIds(first));
    // The second run found the clock at the month's end already, at every clock step.
    expect(second.steps.filter((step: any) => step.kind === 'clock').map((step: any) => step.result.offset_seconds)).toEqual([2_592_000, 2_592_000, 2_592_000, 2_592_000]);
  }, 120_000);
});

describe('scenario files', () => {
  const write = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it('a failing step is named with its line; nothing after it runs; the exit code is the API error\'s', async () => {
    const { merchant, env } = await merchantEnv('failing@example.com');
    const path = write(
      'failing.yaml',
      [
        'name: failing-refund',
        'steps:',
        '  - name: sale',
        '    order: { amount: { currency_code: USD, value: "10.00" } }',
        '  - name: too_much',
        '    refund:',
        '      capture_id: ${sale.capture_id}',
        '      amount: { currency_code: USD, value: "25.00" }',
        '  - name: never',
        '    top_up: { currency_code: USD, value: "5.00" }',
        '',
      ].join('\n'),
    );
    const text = await seed(env, path);
    expect(text.code).toBe(5);
    expect(text.stdout).toBe('');
    expect(text.stderr).toContain(`${path}:5: step "too_much" (refund) failed`);
    expect(text.stderr).toMatch(/ok {2}sale \(order\)/);

    const json = await seed(env, path, '--json');
    expect(json.code).toBe(5);
    expect(json.stdout).toBe('');
    const report = JSON.parse(json.stderr);
    expect(report).toMatchObject({ step: 'too_much', line: 5, file: path, name: 'UNPROCESSABLE_ENTITY' });
    const balances = (await harness.request('GET', '/_payctl/balances', { token: merchant.token })).body;
    expect(JSON.stringify(balances)).not.toContain('5.00');
  }, 60_000);

  it('JSON files work too, and a step refers to a nested field of an earlier result', async () => {
    const { env } = await merchantEnv('json@example.com');
    const text = JSON.stringify(
        {
          name: 'nested-json',
          steps: [
            { name: 'held', order: { intent: 'AUTHORIZE', amount: { currency_code: 'EUR', value: '40.00' }, to: 'authorized' } },
            { name: 'half', capture: { authorization_id: '${held.purchase_units[0].payments.authorizations[0].id}', amount: { currency_code: 'EUR', value: '20.00' } } },
          ],
        },
        null,
        2,
      );
    const path = write('nested.json', text);
    const run = okJson(await seed(env, path, '--json'));
    expect(run.steps[1].result.amount).toEqual({ currency_code: 'EUR', value: '20.00' });
    // The line of the step's opening brace: the one before its "name".
    expect(run.steps[1].line).toBe(text.split('\n').findIndex((line) => line.includes('"half"')));
  }, 60_000);

  it('the file is checked before anything runs: the bad line is named, exit 2, nothing made', async () => {
    const { merchant, env } = await merchantEnv('checked@example.com');
    const cases: Array<[string, RegExp]> = [
      ['steps:\n  - name: a\n    top_up: { currency_code: USD, value: "1.00" }\n  - name: b\n    refund: { capture_id: "${nowhere.id}" }\n', /:5: step 2: "b": \$\{nowhere\.id\} refers to no earlier step/],
      ['steps:\n  - name: a\n    top_up: { currency_code: USD, value: "1.00" }\n  - name: b\n    order:\n      amount: { currency_code: USD, value: 12 }\n', /:6: step "b" \(order\): amount\.value: .*expected string/],
      ['steps:\n  - name: a\n    top_up: { currency_code: USD, value: "1.00" }\n  - name: a\n    clock: { offset: 1d }\n', /:4: step 2: the name "a" is already taken/],
      ['steps:\n  - name: a\n    teleport: {}\n', /:3: step 1: "a": unknown key "teleport"/],
      ['steps:\n  - name: a\n    clock: { offset: soon }\n', /:3: step "a" \(clock\): offset: a duration/],
      ['steps: [\n', /:\d+: /],
    ];
    for (const [index, [text, expected]] of cases.entries()) {
      const result = await seed(env, write(`bad-${index}.yaml`, text));
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(expected);
    }
    const balances = (await harness.request('GET', '/_payctl/balances', { token: merchant.token })).body;
    expect(JSON.stringify(balances)).not.toContain('1.00');
  }, 120_000);

  it('payouts, top-ups and fault rules: a re-run pays out once and keeps one rule', async () => {
    const { merchant, env } = await merchantEnv('payer@example.com');
    const path = write(
      'payouts.yaml',
      [
        'name: payouts-and-faults',
        'steps:',
        '  - name: float',
        '    top_up: { currency_code: USD, value: "100.00" }',
        '  - name: pay_team',
        '    payout:',
        '      items:',
        '        - { recipient_type: EMAIL, receiver: ana@example.com, amount: { currency: USD, value: "12.00" } }',
        '        - { recipient_type: EMAIL, receiver: ben@example.com, amount: { currency: USD, value: "8.00" } }',
        '  - name: flaky_capture',
        '    fault:',
        '      method: POST',
        "      path: '/v2/payments/authorizations/*/capture'",
        '      after: 1',
        '      times: 1',
        '      respond: { status: 503 }',
        '',
      ].join('\n'),
    );
    const first = okJson(await seed(env, path, '--json'));
    // The batch is paid in the background: counts are taken once it has settled.
    const batchId = first.steps[1].result.batch_header.payout_batch_id;
    let status = '';
    await waitFor(
      async () => {
        const batch = await harness.request('GET', `/v1/payments/payouts/${batchId}`, { token: merchant.token });
        status = batch.body.batch_header.batch_status;
        return ['SUCCESS', 'DENIED', 'CANCELED'].includes(status);
      },
      { timeoutMs: 20_000, intervalMs: 100, what: () => `payout batch ${batchId} to settle (last status: ${status})` },
    );
    const after = await counts(merchant);
    const second = okJson(await seed(env, path, '--json'));
    expect(await counts(merchant)).toEqual(after);
    expect(second.steps[1].result.batch_header.payout_batch_id).toBe(first.steps[1].result.batch_header.payout_batch_id);
    expect(second.steps[2].result.id).toBe(first.steps[2].result.id);
    const rules = await harness.request('GET', '/_payctl/faults', { token: merchant.token });
    expect(rules.body.items).toHaveLength(1);
    expect(rules.body.items[0]).toMatchObject({ method: 'POST', after: 1, times: 1, respond: { status: 503 } });
  }, 60_000);

  it('accounts and consents: a re-run acts as the same account (credentials kept), the consent stays one', async () => {
    const { env } = await merchantEnv('platform@example.com');
    const path = write(
      'accounts.yaml',
      [
        'name: accounts',
        'steps:',
        '  - name: seller',
        '    account: { email: seller-one@example.com }',
        '  - name: seller_sale',
        '    as: seller',
        '    order: { amount: { currency_code: USD, value: "7.00" } }',
        `  - name: allow`,
        `    consent: { platform_client_id: "${env.PAYCTL_CLIENT_ID}", payer_id: "\${seller.payer_id}" }`,
        '',
      ].join('\n'),
    );
    const first = okJson(await seed(env, path, '--json'));
    const second = okJson(await seed(env, path, '--json'));
    expect(second.steps[0].result.payer_id).toBe(first.steps[0].result.payer_id);
    expect(second.steps[1].result.id).toBe(first.steps[1].result.id);
    // The order belongs to the seller: the platform's own credentials do not see it.
    const sellerToken = await harness.tokenFor(first.steps[0].result.client_id, first.steps[0].result.client_secret);
    expect((await harness.request('GET', `/v2/checkout/orders/${first.steps[1].result.id}`, { token: sellerToken })).status).toBe(200);
    expect((await harness.request('GET', `/v2/checkout/orders/${first.steps[1].result.id}`)).status).toBe(404);
  }, 60_000);
});

describe('payctl serve --seed', () => {
  /** Starts `payctl serve` with a seed file; resolves with its JSON summary, or its exit code if it stopped. */
  function serve(seedFile: string): { started: Promise<{ summary?: any; code?: number | null; stderr: string }>; stop: () => Promise<number | null> } {
    const childEnv: Record<string, string> = {};
    for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !key.startsWith('PAYCTL_')) childEnv[key] = value;
    Object.assign(childEnv, { CI: '1', NO_COLOR: '1', PAYCTL_CONFIG_DIR: join(dir, 'serve-config') });
    const child = spawn(process.execPath, [join(REPO, 'bin/run.js'), 'serve', '--port', '0', '--db', ':memory:', '--json', '--no-save-profile', '--seed', seedFile], { cwd: REPO, env: childEnv });
    let stdout = '';
    let stderr = '';
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    void exited.then(() => clearTimeout(timer));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const started = new Promise<{ summary?: any; code?: number | null; stderr: string }>((resolve) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString('utf8');
        if (stdout.includes('\n')) resolve({ summary: JSON.parse(stdout.split('\n')[0] as string), stderr });
      });
      void exited.then((code) => resolve({ code, stderr }));
    });
    return {
      started,
      stop: () => {
        child.kill('SIGINT');
        return exited;
      },
    };
  }

  it('seeds the shop before announcing the server: its merchant has the captures, refunds and webhook', async () => {
    const run = serve(join(REPO, 'examples/shop.yaml'));
    const { summary, stderr } = await run.started;
    try {
      expect(summary?.base_url, stderr).toMatch(/^http:/);
      expect(stderr).toContain('payctl serve: seeded mug_returned (refund)');
      const response = await fetch(`${summary.base_url}/v1/oauth2/token`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${summary.client_id}:${summary.client_secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials',
      });
      const { access_token: accessToken } = (await response.json()) as { access_token: string };
      const hooks = await fetch(`${summary.base_url}/v1/notifications/webhooks`, { headers: { authorization: `Bearer ${accessToken}` } });
      expect(((await hooks.json()) as any).webhooks.map((hook: any) => hook.url)).toEqual(['https://shop.example.com/paypal/webhooks']);
    } finally {
      expect(await run.stop()).toBe(0);
    }
  }, 120_000);

  it('a seed that fails stops the server with the step\'s exit code and names the step and line', async () => {
    const path = join(dir, 'serve-failing.yaml');
    writeFileSync(path, 'steps:\n  - name: nothing_to_refund\n    refund: { capture_id: NO-SUCH-CAPTURE }\n');
    const { code, stderr } = await serve(path).started;
    expect(code).toBe(3);
    // serve --json: the error is one JSON line on stderr.
    const report = JSON.parse(stderr.trim().split('\n').at(-1) as string);
    expect(report).toMatchObject({ name: 'RESOURCE_NOT_FOUND', step: 'nothing_to_refund', line: 2, file: path });
    expect(report.message).toContain(`${path}:2: step "nothing_to_refund" (refund) failed`);
  }, 120_000);
});
