// `payctl payments refund` reads nothing it does not need (issue 27, point 9): counted by a proxy in
// front of the real server that records every request the built binary sends.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { okJson, useCliServer, runCli } from './cli-harness.js';
import { countingProxy, type CountingProxy } from './counting-proxy.js';
import { runInPty } from './pty.js';

const s = useCliServer(['payments:authorize', 'payments:capture', 'payments:refund'], 'payctl-refund-cli-');

let proxy: CountingProxy;
beforeAll(async () => {
  proxy = await countingProxy(s.harness.url);
});
afterAll(async () => {
  await proxy?.close();
});

async function captured(amount = '40.00'): Promise<string> {
  const auth = okJson(await s.cli('payments', 'authorize', '--amount', amount, '--currency', 'USD', '--json')).id as string;
  return okJson(await s.cli('payments', 'capture', auth, '--yes', '--json')).id as string;
}

/** Runs payctl through the proxy and returns what it sent (token requests aside). */
async function counted(...args: string[]) {
  proxy.reset();
  const result = await runCli(args, { env: { ...s.env, PAYCTL_BASE_URL: proxy.url } });
  return { result, seen: [...proxy.seen] };
}

describe('payments refund: the requests it sends', () => {
  it('--yes --json sends the refund alone: no read of the capture, its order or its refunds', async () => {
    const captureId = await captured();
    const { result, seen } = await counted('payments', 'refund', captureId, '--amount', '5.00', '--currency', 'USD', '--yes', '--json');
    expect(okJson(result)).toMatchObject({ status: 'COMPLETED', amount: { value: '5.00', currency_code: 'USD' } });
    expect(seen).toEqual([`POST /v2/payments/captures/${captureId}/refund`]);

    const rest = await counted('payments', 'refund', captureId, '--yes', '--json');
    expect(okJson(rest.result)).toMatchObject({ amount: { value: '35.00' } });
    expect(rest.seen).toEqual([`POST /v2/payments/captures/${captureId}/refund`]);
  });

  it('--amount without --currency reads the capture once, for its currency', async () => {
    const captureId = await captured();
    const { result, seen } = await counted('payments', 'refund', captureId, '--amount', '5.00', '--yes', '--json');
    expect(okJson(result).amount).toEqual({ value: '5.00', currency_code: 'USD' });
    expect(seen).toEqual([`GET /v2/payments/captures/${captureId}`, `POST /v2/payments/captures/${captureId}/refund`]);
  });

  it('without --yes and without a terminal it refuses (exit 2) before sending anything', async () => {
    const captureId = await captured('12.00');
    const { result, seen } = await counted('payments', 'refund', captureId, '--amount', '2.00');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`Refund 2.00 of capture ${captureId}`);
    expect(result.stderr).toContain('--yes');
    expect(seen).toEqual([]);
  });

  it('too much is refused by the server, whose message says what is left', async () => {
    const captureId = await captured('12.00');
    await counted('payments', 'refund', captureId, '--amount', '2.00', '--currency', 'USD', '--yes');
    const { result, seen } = await counted('payments', 'refund', captureId, '--amount', '10.01', '--currency', 'USD', '--yes');
    expect(result.code).toBe(5);
    expect(result.stderr).toContain('REFUND_AMOUNT_EXCEEDED');
    expect(result.stderr).toContain('10.00 USD');
    expect(seen).toEqual([`POST /v2/payments/captures/${captureId}/refund`]);
  });

  it('on a terminal the confirmation shows the capture, read once, then refunds', async () => {
    const captureId = await captured('30.00');
    proxy.reset();
    const pty = runInPty(['payments', 'refund', captureId, '--amount', '4.00'], { env: { ...s.env, PAYCTL_BASE_URL: proxy.url }, columns: 200 });
    await pty.waitFor(/Refund 4\.00 USD of capture \S+ \(30\.00 USD, captured .*, COMPLETED\)\?/);
    expect(proxy.seen).toEqual([`GET /v2/payments/captures/${captureId}`]);
    pty.type('y\r');
    const { code, screen } = await pty.done;
    expect(code, screen).toBe(0);
    expect(screen).toMatch(/Amount\s+4\.00 USD/);
    expect(proxy.seen).toEqual([`GET /v2/payments/captures/${captureId}`, `POST /v2/payments/captures/${captureId}/refund`]);
  });
});
