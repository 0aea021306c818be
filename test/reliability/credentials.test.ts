// Credentials: wrong secrets for a client id are answered ever more slowly; secrets, admin keys and
// access tokens never show up in the server's log (at trace level), in its answers, or in what the
// payctl CLI prints, apart from the two places that print them by design.

import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, runCli, type CliResult } from '../commands/cli-harness.js';
import { startTestServer, type Merchant, type TestServer } from '../helpers/server.js';
import { send, type Answer } from './fixtures/http.js';

const logLines: string[] = [];
let t: TestServer;

beforeAll(async () => {
  // Builds dist/ if a source changed: synchronous, so before any connection is pooled.
  ensureBuilt(['auth:token', 'auth:status', 'auth:login', 'api', 'sandbox:accounts:create', 'payments:get', 'invoices:list']);
  t = await startTestServer({ memory: true, logLevel: 'trace', logDestination: { write: (line: string) => void logLines.push(line) } });
}, 180_000);
afterAll(async () => {
  await t.close();
});

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

function tokenRequest(clientId: string, secret: string): Promise<Answer> {
  return send(t.url, {
    method: 'POST',
    target: '/v1/oauth2/token',
    headers: { authorization: basic(clientId, secret), 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
    timeoutMs: 10_000,
  });
}

describe('wrong secrets are slowed down per client id', () => {
  it('answers the first five failures at once, then waits 100 ms doubling up to 2 s, and a success resets it', async () => {
    const victim = await t.createMerchant();
    const times: number[] = [];
    for (let attempt = 1; attempt <= 12; attempt += 1) {
      const answer = await tokenRequest(victim.client_id, `wrong-${attempt}`);
      expect(answer.status).toBe(401);
      expect(answer.body).toEqual({ error: 'invalid_client', error_description: 'Client Authentication failed' });
      times.push(answer.elapsedMs);
    }
    const [t1, t2, t3, t4, t5, t6, t7, t8, t9, t10, t11, t12] = times as [number, number, number, number, number, number, number, number, number, number, number, number];
    const baseline = Math.max(t1, t2, t3, t4, t5);
    // Lower bounds are the server's sleeps (exact); upper bounds leave seconds of room for a busy machine.
    // "Not slowed" is anything under the 2 s a throttled client id waits (a secret check takes ~50 ms).
    const NOT_SLOWED = 1_800;
    expect(baseline).toBeLessThan(NOT_SLOWED);
    expect(t6).toBeGreaterThanOrEqual(100);
    expect(t7).toBeGreaterThanOrEqual(200);
    expect(t8).toBeGreaterThanOrEqual(400);
    expect(t9).toBeGreaterThanOrEqual(800);
    expect(t10).toBeGreaterThanOrEqual(1_600);
    expect(t10).toBeGreaterThan(t7);
    for (const capped of [t11, t12]) {
      expect(capped).toBeGreaterThanOrEqual(2_000);
      expect(capped).toBeLessThan(2_000 + baseline + 3_000);
    }

    // Another client id is not held up by this one's failures.
    const bystander = await t.createMerchant();
    expect((await tokenRequest(bystander.client_id, 'wrong')).elapsedMs).toBeLessThan(NOT_SLOWED);

    // The right secret still works (after the wait) and clears the count.
    const right = await tokenRequest(victim.client_id, victim.client_secret);
    expect(right.status).toBe(200);
    expect(right.elapsedMs).toBeGreaterThanOrEqual(2_000);
    const afterSuccess = await tokenRequest(victim.client_id, 'wrong-again');
    expect(afterSuccess.status).toBe(401);
    expect(afterSuccess.elapsedMs).toBeLessThan(NOT_SLOWED);
    console.log(`credential throttle: answer times of 12 wrong secrets (ms): ${times.join(', ')}; right secret while throttled ${right.elapsedMs} ms; next wrong one ${afterSuccess.elapsedMs} ms`);
  }, 60_000);
});

describe('secrets and tokens never appear in logs, answers or CLI output', () => {
  /** Values that must not be printed: secrets, admin key, tokens, and the Basic credentials that encode secrets. */
  const secrets = new Map<string, string>();
  const remember = (label: string, value: string) => {
    secrets.set(value, label);
  };
  /** Everything captured, with where it came from. */
  const captured: Array<{ source: string; text: string; allowed?: string[] }> = [];
  const cliRuns: Array<{ args: string[]; result: CliResult }> = [];
  let configDir = '';

  afterAll(() => {
    if (configDir) rmSync(configDir, { recursive: true, force: true });
  });

  const capture = (source: string, answer: Answer) =>
    captured.push({ source, text: `${answer.status} ${JSON.stringify(answer.headers)} ${answer.text}` });

  async function cli(args: string[], env: Record<string, string | undefined>): Promise<CliResult> {
    const result = await runCli(args, { env: { PAYCTL_CONFIG_DIR: configDir, PAYCTL_BASE_URL: t.url, ...env }, timeoutMs: 30_000 });
    cliRuns.push({ args, result });
    captured.push({ source: `payctl ${args.join(' ')} (stdout)`, text: result.stdout });
    captured.push({ source: `payctl ${args.join(' ')} (stderr)`, text: result.stderr });
    return result;
  }

  it('exercises the server (tokens, failures, API calls, errors) and the CLI (successes and failures)', async () => {
    configDir = mkdtempSync(join(tmpdir(), 'payctl-creds-'));
    const merchant: Merchant = t.merchant;
    const second = await t.createMerchant();
    remember('admin key', t.adminKey);
    for (const [name, account] of [['default', merchant], ['second', second]] as const) {
      remember(`${name} client secret`, account.client_secret);
      remember(`${name} token`, account.token);
      remember(`${name} Basic credentials`, Buffer.from(`${account.client_id}:${account.client_secret}`).toString('base64'));
    }
    const wrongSecret = `wrong-secret-${Date.now()}-x9`;
    remember('a wrong secret', wrongSecret);
    remember('a wrong admin key', `${t.adminKey.slice(0, -3)}zzz`);

    // The server: token issue and its failures.
    const issued = await tokenRequest(merchant.client_id, merchant.client_secret);
    capture('token issued', { ...issued, text: '' });
    const fresh = (issued.body as { access_token: string }).access_token;
    remember('a fresh token', fresh);
    capture('wrong secret', await tokenRequest(merchant.client_id, wrongSecret));
    capture('unknown client', await tokenRequest('no-such-client', merchant.client_secret));
    capture('malformed Basic', await send(t.url, { method: 'POST', target: '/v1/oauth2/token', headers: { authorization: `Basic ${merchant.client_secret}`, 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=client_credentials' }));
    capture('wrong grant', await send(t.url, { method: 'POST', target: '/v1/oauth2/token', headers: { authorization: basic(merchant.client_id, merchant.client_secret), 'content-type': 'application/x-www-form-urlencoded' }, body: `grant_type=password&password=${merchant.client_secret}` }));

    // API calls that work and that fail, with real and bad credentials.
    const bearer = { authorization: `Bearer ${fresh}`, 'content-type': 'application/json' };
    capture('whoami', await send(t.url, { method: 'GET', target: '/_payctl/whoami', headers: bearer }));
    capture('order', await send(t.url, { method: 'POST', target: '/v2/checkout/orders', headers: bearer, body: JSON.stringify({ intent: 'CAPTURE', purchase_units: [{ amount: { currency_code: 'USD', value: '5.00' } }] }) }));
    capture('not found', await send(t.url, { method: 'GET', target: '/v2/payments/captures/NOPE', headers: bearer }));
    capture('invalid body', await send(t.url, { method: 'POST', target: '/_payctl/balances', headers: bearer, body: '{"currency":1}' }));
    capture('simulated 500', await send(t.url, { method: 'GET', target: '/v2/checkout/orders/NOPE', headers: { ...bearer, 'service-mock-response': '{"mock_application_codes":"INTERNAL_SERVER_ERROR"}' } }));
    capture('bad token', await send(t.url, { method: 'GET', target: '/_payctl/whoami', headers: { authorization: `Bearer ${fresh.slice(0, -2)}zz` } }));
    capture('secret as a token', await send(t.url, { method: 'GET', target: '/_payctl/whoami', headers: { authorization: `Bearer ${merchant.client_secret}` } }));
    capture('token too long', await send(t.url, { method: 'GET', target: '/_payctl/whoami', headers: { authorization: `Bearer ${fresh}${'x'.repeat(16_000)}` } }));
    capture('other tenant', await send(t.url, { method: 'GET', target: '/_payctl/whoami', headers: { authorization: `Bearer ${second.token}` } }));
    capture('admin', await send(t.url, { method: 'POST', target: '/_payctl/accounts', headers: { authorization: `Bearer ${t.adminKey}`, 'content-type': 'application/json' }, body: '{}' }).then((answer) => {
      remember('an account secret created over HTTP', (answer.body as { client_secret: string }).client_secret);
      return { ...answer, text: '' };
    }));
    capture('wrong admin key', await send(t.url, { method: 'POST', target: '/_payctl/accounts', headers: { authorization: `Bearer ${t.adminKey.slice(0, -3)}zzz`, 'content-type': 'application/json' }, body: '{}' }));
    // A token across a clock move past its lifetime (still live: tokens live in real time).
    const expiring = await t.tokenFor(second.client_id, second.client_secret);
    remember('a token across a clock move', expiring);
    await send(t.url, { method: 'POST', target: '/_payctl/clock', headers: { authorization: `Bearer ${expiring}`, 'content-type': 'application/json' }, body: JSON.stringify({ advance_seconds: 40_000 }) });
    capture('token after a clock move', await send(t.url, { method: 'GET', target: '/_payctl/whoami', headers: { authorization: `Bearer ${expiring}` } }));

    // The CLI, as a user would run it, with credentials in the environment.
    const env = { PAYCTL_CLIENT_ID: merchant.client_id, PAYCTL_CLIENT_SECRET: merchant.client_secret };
    const token = await cli(['auth', 'token'], env);
    expect(token.code).toBe(0);
    remember('the token payctl auth token printed', token.stdout.trim());
    const tokenJson = await cli(['auth', 'token', '--json'], env);
    expect(tokenJson.code).toBe(0);
    remember('the token payctl auth token --json printed', (JSON.parse(tokenJson.stdout) as { access_token: string }).access_token);
    // Only the token itself is printed by design: mark it allowed in those two stdouts.
    captured.filter((entry) => entry.source.startsWith('payctl auth token') && entry.source.endsWith('(stdout)')).forEach((entry) => (entry.allowed = [token.stdout.trim(), (JSON.parse(tokenJson.stdout) as { access_token: string }).access_token]));
    expect((await cli(['auth', 'status'], env)).code).toBe(0);
    expect((await cli(['auth', 'status', '--json'], env)).code).toBe(0);
    expect((await cli(['api', 'GET', '/_payctl/whoami', '--include'], env)).code).toBe(0);
    expect((await cli(['invoices', 'list', '--json'], env)).code).toBe(0);
    expect((await cli(['payments', 'get', 'capture', 'NOSUCHCAPTURE'], env)).code).toBe(3);
    expect((await cli(['api', 'POST', '/_payctl/accounts', '-H', `Authorization: Bearer ${t.adminKey}`, '--data', '{}'], env)).code).toBe(0);
    const created = await cli(['sandbox', 'accounts', 'create', '--json'], { PAYCTL_ADMIN_KEY: t.adminKey });
    expect(created.code).toBe(0);
    const newSecret = (JSON.parse(created.stdout) as { client_secret: string }).client_secret;
    remember('the secret sandbox accounts create printed', newSecret);
    // The new account's secret is printed this once by design (its stdout only; the admin key still may not appear).
    (captured.at(-2) as { allowed?: string[] }).allowed = [newSecret];
    // Failures: a wrong secret, a wrong admin key, a token that is not one.
    const wrong = { PAYCTL_CLIENT_ID: merchant.client_id, PAYCTL_CLIENT_SECRET: wrongSecret };
    expect((await cli(['auth', 'status'], wrong)).code).toBe(4);
    expect((await cli(['auth', 'token', '--json'], wrong)).code).toBe(4);
    expect((await cli(['invoices', 'list'], wrong)).code).toBe(4);
    expect((await cli(['sandbox', 'accounts', 'create'], { PAYCTL_ADMIN_KEY: `${t.adminKey.slice(0, -3)}zzz` })).code).toBe(4);
    expect((await cli(['api', 'GET', '/_payctl/whoami', '-H', `Authorization: Bearer ${merchant.client_secret}`], env)).code).toBe(4);
    expect((await cli(['auth', 'login', '--client-id', merchant.client_id, '--client-secret', wrongSecret], {})).code).toBe(4);

    // Tokens the CLI fetched for itself sit in its token cache (a file only the user can read).
    for (const file of readdirSync(configDir, { recursive: true }) as string[]) {
      const path = join(configDir, file);
      if (!statSync(path).isFile()) continue;
      expect(statSync(path).mode & 0o077).toBe(0);
      for (const found of readFileSync(path, 'utf8').match(/A21AA[A-Za-z0-9_-]{16,}/g) ?? []) remember('a token the CLI cached', found);
    }
  }, 240_000);

  it('none of them appears anywhere but where it is printed by design', () => {
    const everything = [...captured, { source: 'server log (trace)', text: logLines.join('') }];
    const hits: string[] = [];
    for (const [value, label] of secrets) {
      if (value.length < 12) continue;
      for (const entry of everything) {
        if (entry.allowed?.includes(value)) continue;
        if (entry.text.includes(value)) hits.push(`${label} in ${entry.source}`);
      }
    }
    expect(logLines.length).toBeGreaterThan(50);
    expect(logLines.join('')).toContain('incoming request');
    expect(secrets.size).toBeGreaterThanOrEqual(14);
    expect(hits).toEqual([]);
    // The search does see CLI output: the by-design prints are there, and only there.
    const byDesign = captured.filter((entry) => entry.allowed && entry.allowed.length > 0);
    expect(byDesign.length).toBe(3);
    for (const entry of byDesign) expect(entry.allowed?.some((value) => entry.text.includes(value)), entry.source).toBe(true);
    const bytes = everything.reduce((sum, entry) => sum + entry.text.length, 0);
    console.log(`secret scan: ${secrets.size} secrets and tokens searched in ${logLines.length} log lines, ${captured.length - cliRuns.length * 2} HTTP answers and ${cliRuns.length} payctl runs (${bytes} characters); found ${hits.length}`);
  });
});
