// Issue 25, what a new user trips over, against the built binary: output through a slow pipe,
// profiles, tables at 80 and 160 columns on a pseudo-terminal, "did you mean", declined prompts,
// bulk progress and interrupts, and relative times on the account's clock.

import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { authorize, capture } from '../server/payments-helpers.js';
import { waitUntil } from '../server/webhooks-support.js';
import { okJson, REPO, runCli, useCliServer } from './cli-harness.js';
import { runInPty } from './pty.js';

// Jobs every 100 ms: webhook deliveries are attempted while the test waits for them.
const server = useCliServer(
  [
    'auth:list',
    'auth:switch',
    'auth:logout',
    'auth:login',
    'payments:refund',
    'webhooks:list',
    'webhooks:deliveries',
    'disputes:list',
    'disputes:get',
    'sandbox:audit',
    'webhooks:trigger',
  ],
  'payctl-operator-',
  { server: { memory: true, config: { jobIntervalMs: 100 } }, configSubdir: 'config' },
);

async function newCapture(value: string): Promise<string> {
  const captured = await capture(server.harness, await authorize(server.harness, value));
  return captured.body.id as string;
}

async function captureStatus(id: string): Promise<string> {
  return (await server.harness.request('GET', `/v2/payments/captures/${id}`)).body.status as string;
}

function refundFile(name: string, rows: readonly string[]): string {
  const path = join(server.dir, name);
  writeFileSync(path, `capture_id,amount,currency,note\n${rows.join('\n')}\n`);
  return path;
}

interface SlowRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs payctl with stdout read by a reader slower than the writer: it pauses after every chunk, so
 * the pipe stays full and Node queues what payctl writes. `onLine` sees each stdout line as it comes.
 */
function runWithSlowReader(
  args: readonly string[],
  runEnv: Record<string, string>,
  options: { onLine?: (line: string, kill: (signal: NodeJS.Signals) => void) => void; holdUntilStderr?: RegExp } = {},
): Promise<SlowRun> {
  const { onLine, holdUntilStderr } = options;
  const childEnv: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith('PAYCTL_') && key !== 'FORCE_COLOR') childEnv[key] = value;
  }
  Object.assign(childEnv, { CI: '1', NO_COLOR: '1' }, runEnv);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO, 'bin/run.js'), ...args], { cwd: REPO, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let pending = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) onLine?.(line, (signal) => child.kill(signal));
      if (holding) return;
      child.stdout.pause();
      // Kept on purpose: the slow reader under test (a pause after every chunk keeps the pipe full).
      setTimeout(() => !holding && child.stdout.resume(), 3);
    });
    // Held: nothing is read until payctl says on stderr that it is done (about to exit), so all
    // it wrote after the pipe filled is still queued inside it at that moment.
    let holding = holdUntilStderr !== undefined;
    if (holding) child.stdout.pause();
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      if (holding && holdUntilStderr?.test(stderr)) {
        holding = false;
        child.stdout.resume();
      }
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

describe('1. output through a slow pipe', () => {
  // Rows without a capture id fail before any request: thousands of failures in about a second.
  const failing = (count: number) => Array.from({ length: count }, () => ',1.00,USD,');
  const done = { holdUntilStderr: /refund\(s\) failed/ };

  it('a bulk refund whose 3,000 rows all fail prints all 3,000 NDJSON lines', async () => {
    const rows = failing(3000);
    const ndjson = await runWithSlowReader(['payments', 'refund', '--from-file', refundFile('all-fail.csv', rows), '--yes', '--json'], server.env, done);
    expect(ndjson.code, ndjson.stderr).toBe(2);
    expect(ndjson.stderr).toContain('3000 of 3000 refund(s) failed');
    const lines = ndjson.stdout.split('\n').filter(Boolean);
    expect(lines).toHaveLength(3000);
    expect(lines.map((line) => (JSON.parse(line) as { row: number }).row)).toEqual(rows.map((_, i) => i + 1));
  });

  it('and its TSV table whole, header and every row (10,000 rows: more than a socket pair holds)', async () => {
    // Node gives a child a socket pair, not a pipe: it buffers a few hundred KB where a shell's
    // `| wc -l` pipe holds 64 KB, so the table must be bigger than that to be cut without the fix.
    const tsv = await runWithSlowReader(['payments', 'refund', '--from-file', refundFile('all-fail-10k.csv', failing(10_000)), '--yes'], server.env, done);
    expect(tsv.code, tsv.stderr).toBe(2);
    const lines = tsv.stdout.split('\n').filter(Boolean);
    expect(lines).toHaveLength(10_001);
    expect(lines.at(-1)).toMatch(/^10000\t/);
  });
});

describe('3. profiles: list, switch, logout', () => {
  const creds = () => server.harness.server.defaultCredentials;
  const profileEnv = () => ({ PAYCTL_CONFIG_DIR: join(server.dir, 'profiles') });
  const cli = (...args: string[]) => runCli(args, { env: profileEnv() });
  const login = (profile: string) =>
    cli('auth', 'login', '--profile', profile, '--base-url', server.harness.url, '--client-id', creds().client_id, '--client-secret', creds().client_secret);

  it('lists and switches profiles; logging out of the current one falls back to a usable one and says so', async () => {
    expect((await login('default')).code).toBe(0);
    expect((await login('seller')).code).toBe(0);
    let list = okJson<{ current: string; profiles: Array<{ name: string; current: boolean; logged_in: boolean }> }>(await cli('auth', 'list', '--json'));
    expect(list.current).toBe('seller');
    expect(list.profiles.map((p) => [p.name, p.current, p.logged_in])).toEqual([
      ['default', false, true],
      ['seller', true, true],
    ]);
    const piped = await cli('auth', 'list');
    expect(piped.stdout.split('\n')[0]).toBe('Current\tProfile\tBase URL\tClient id\tLogged in');
    expect(piped.stdout).toContain(`*\tseller\t${server.harness.url}\t${creds().client_id}\tyes`);

    const switched = await cli('auth', 'switch', 'default');
    expect(switched.code, switched.stderr).toBe(0);
    expect(switched.stderr).toContain('Switched from profile "seller" to "default".');
    expect(okJson(await cli('auth', 'list', '--json')).current).toBe('default');
    const unknown = await cli('auth', 'switch', 'nope');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no profile "nope"; the profiles are: default, seller');

    expect((await cli('auth', 'switch', 'seller')).code).toBe(0);
    const logout = await cli('auth', 'logout');
    expect(logout.code, logout.stderr).toBe(0);
    expect(logout.stderr).toContain('Logged out of profile "seller".');
    expect(logout.stderr).toContain('Profile "default" is now current');
    // Every command works again, through the profile it named.
    const status = okJson<{ profile: string }>(await cli('auth', 'status', '--json'));
    expect(status.profile).toBe('default');
    list = okJson(await cli('auth', 'list', '--json'));
    expect(list.profiles.map((p) => [p.name, p.current, p.logged_in])).toEqual([
      ['default', true, true],
      ['seller', false, false],
    ]);

    const last = await cli('auth', 'logout');
    expect(last.stderr).toContain('No other profile holds credentials: run `payctl auth login`');
    const none = await cli('auth', 'status');
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('payctl auth login');
  });

  it('serve says which profile stays current when another one is in use', async () => {
    const configDir = join(server.dir, 'serve-profiles');
    expect((await runCli(['auth', 'login', '--profile', 'seller', '--base-url', server.harness.url, '--client-id', creds().client_id, '--client-secret', creds().client_secret], { env: { PAYCTL_CONFIG_DIR: configDir } })).code).toBe(0);
    const child = spawn(process.execPath, [join(REPO, 'bin/run.js'), 'serve', '--port', '0', '--db', ':memory:'], {
      cwd: REPO,
      env: { ...process.env, PAYCTL_CONFIG_DIR: configDir, PAYCTL_DATA_DIR: join(server.dir, 'serve-data') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const banner: string[] = [];
      await new Promise<void>((resolve) => {
        createInterface({ input: child.stdout }).on('line', (line) => {
          banner.push(line);
          if (line.startsWith('Press Ctrl-C')) resolve();
        });
      });
      expect(banner.join('\n')).toContain('"local" written; "seller" stays current (use --profile local, or payctl auth switch local)');
      expect(banner.join('\n')).not.toContain('other payctl commands use it');
    } finally {
      child.kill('SIGTERM');
    }
    const list = okJson<{ current: string }>(await runCli(['auth', 'list', '--json'], { env: { PAYCTL_CONFIG_DIR: configDir } }));
    expect(list.current).toBe('seller');
  });
});

describe('4. tables fitted to 80 and 160 columns on a terminal', () => {
  const events = ['PAYMENT.CAPTURE.COMPLETED', 'PAYMENT.CAPTURE.REFUNDED', 'PAYMENT.CAPTURE.REVERSED', 'CUSTOMER.DISPUTE.CREATED', 'CUSTOMER.DISPUTE.UPDATED', 'CUSTOMER.DISPUTE.RESOLVED'];
  let webhookIds: string[] = [];
  let disputeIds: string[] = [];
  let deliveryEvents: string[] = [];

  beforeAll(async () => {
    webhookIds = [];
    for (let i = 0; i < 3; i += 1) {
      // Port 9 (discard) is closed: deliveries fail and stay in the log.
      const created = await server.harness.request('POST', '/v1/notifications/webhooks', {
        body: { url: `http://127.0.0.1:9/webhooks/payctl/operator-test/a-rather-long-path/number-${i}`, event_types: events.map((name) => ({ name })) },
      });
      expect(created.status, created.text).toBe(201);
      webhookIds.push(created.body.id as string);
    }
    disputeIds = [];
    for (const value of ['12.00', '13.00']) {
      const opened = await server.harness.request('POST', '/_payctl/disputes', {
        body: { disputed_transaction_id: await newCapture(value), reason: 'MERCHANDISE_OR_SERVICE_NOT_AS_DESCRIBED', message: 'Not what was described' },
        headers: { 'service-request-id': randomUUID() },
      });
      expect(opened.status, opened.text).toBe(201);
      disputeIds.push(opened.body.dispute_id as string);
    }
    await waitUntil(async () => ((await server.harness.request('GET', '/_payctl/deliveries')).body.deliveries?.length ?? 0) >= 3, 20_000, 'deliveries');
    deliveryEvents = ((await server.harness.request('GET', '/_payctl/deliveries')).body.deliveries as Array<{ event_id: string }>).map((d) => d.event_id);
  }, 60_000);

  const cases: Array<[string, string[], () => string[]]> = [
    ['webhooks list', ['webhooks', 'list'], () => webhookIds],
    ['webhooks deliveries', ['webhooks', 'deliveries'], () => deliveryEvents],
    ['disputes list', ['disputes', 'list'], () => disputeIds],
    ['sandbox audit', ['sandbox', 'audit'], () => []],
  ];

  for (const width of [80, 160]) {
    it.each(cases)(`%s at ${width} columns: one line per row, every line fits, ids whole`, async (_name, args, ids) => {
      const run = runInPty(args, { env: server.env, columns: width });
      const { code, screen } = await run.done;
      expect(code, screen).toBe(0);
      const lines = screen.split('\n').filter((line) => line.trim() !== '');
      for (const line of lines) expect([...line].length, line).toBeLessThanOrEqual(width);
      expect(screen).not.toMatch(/[┌┬┐├┼┤└┴┘│─]/);
      // An event goes to each of the three webhooks: one line per delivery, the event id whole on each.
      const perId = args[1] === 'deliveries' ? 3 : 1;
      for (const id of new Set(ids())) expect(lines.filter((line) => line.startsWith(`${id} `)), screen).toHaveLength(perId);
      if (args[0] === 'sandbox') {
        const audit = await server.harness.request('GET', '/_payctl/audit');
        expect(lines).toHaveLength((audit.body.checks as unknown[]).length + 1);
      } else if (args[1] !== 'deliveries') {
        expect(lines).toHaveLength(ids().length + 1);
      }
      // The piped form of the same command stays whole.
      if (args[1] === 'list' && args[0] === 'webhooks' && width === 80) {
        const piped = await server.cli(...args);
        expect(piped.stdout).toContain('http://127.0.0.1:9/webhooks/payctl/operator-test/a-rather-long-path/number-0');
        expect(piped.stdout).toContain(events.join(','));
        expect(screen).toContain('…');
      }
    });

    it(`auth list at ${width} columns: one line per profile, the long client id shortened to fit`, async () => {
      // Two logged-in profiles with the server's real client id (80 characters: wider than the terminal at 80).
      const profileEnv = { PAYCTL_CONFIG_DIR: join(server.dir, `profiles-${width}`) };
      const { client_id: clientId, client_secret: clientSecret } = server.harness.server.defaultCredentials;
      for (const name of ['default', 'a-rather-long-profile-name']) {
        const login = await runCli(['auth', 'login', '--profile', name, '--base-url', server.harness.url, '--client-id', clientId, '--client-secret', clientSecret], { env: profileEnv });
        expect(login.code, login.stderr).toBe(0);
      }
      const profiles = okJson<{ profiles: Array<{ name: string }> }>(await runCli(['auth', 'list', '--json'], { env: profileEnv })).profiles;
      expect(profiles).toHaveLength(2);
      const { code, screen } = await runInPty(['auth', 'list'], { env: profileEnv, columns: width }).done;
      expect(code, screen).toBe(0);
      const lines = screen.split('\n').filter((line) => line.trim() !== '');
      expect(lines, screen).toHaveLength(profiles.length + 1);
      for (const line of lines) expect([...line].length, line).toBeLessThanOrEqual(width);
      for (const profile of profiles) expect(lines.some((line) => line.includes(` ${profile.name} `)), screen).toBe(true);
    });
  }
});

describe('5. "did you mean" suggests and never runs unasked', () => {
  it('without a terminal: exit 2, the suggestion with every argument, nothing run', async () => {
    const id = await newCapture('20.00');
    const typo = await server.cli('payments', 'refnd', id, '--amount', '1.00', '--yes');
    expect(typo.code).toBe(2);
    expect(typo.stdout).toBe('');
    expect(typo.stderr).toContain('"payments refnd" is not a payctl command.');
    expect(typo.stderr).toContain(`payctl payments refund ${id} --amount 1.00 --yes`);
    expect(typo.stderr).not.toContain('reauthorize');
    const plural = await server.cli('payments', 'refunds', id, '--amount', '1.00', '--yes');
    expect(plural.code).toBe(2);
    expect(plural.stderr).toContain(`payctl payments refund ${id} --amount 1.00 --yes`);
    expect(await captureStatus(id)).toBe('COMPLETED');
    // Positive control: the suggested line itself refunds.
    expect((await server.cli('payments', 'refund', id, '--amount', '1.00', '--yes')).code).toBe(0);
    expect(await captureStatus(id)).toBe('PARTIALLY_REFUNDED');
  });

  it('on a terminal: asks with No as the default; Yes runs it with the original arguments', async () => {
    const id = await newCapture('20.00');
    const declined = runInPty(['payments', 'refnd', id, '--amount', '1.00', '--yes'], { env: server.env });
    await declined.waitFor(/\(y\/N\)/);
    expect(declined.screen()).toContain(`Run \`payctl payments refund ${id} --amount 1.00 --yes\` instead?`);
    declined.type('\r');
    const no = await declined.done;
    expect(no.code, no.screen).toBe(2);
    expect(no.screen).toContain('Nothing was run.');
    expect(await captureStatus(id)).toBe('COMPLETED');

    const accepted = runInPty(['payments', 'refnd', id, '--amount', '1.00', '--yes'], { env: server.env });
    await accepted.waitFor(/\(y\/N\)/);
    accepted.type('y\r');
    const yes = await accepted.done;
    expect(yes.code, yes.screen).toBe(0);
    const refunds = await server.harness.server.db.selectFrom('refunds').select(['amount_minor']).where('capture_id', '=', id).execute();
    expect(refunds.map((refund) => refund.amount_minor)).toEqual([100n]);
  });

  it('on a terminal with CI set or --no-input: does not ask, names the reason, runs nothing', async () => {
    const id = await newCapture('20.00');
    const ci = await runInPty(['payments', 'refnd', id, '--amount', '1.00', '--yes'], { env: { ...server.env, CI: '1' } }).done;
    expect(ci.code, ci.screen).toBe(2);
    expect(ci.screen).toContain('Nothing was run (not asking: CI is set)');
    expect(ci.screen).not.toContain('(y/N)');
    const noInput = await runInPty(['payments', 'refnd', id, '--amount', '1.00', '--yes', '--no-input'], { env: server.env }).done;
    expect(noInput.code, noInput.screen).toBe(2);
    expect(noInput.screen).toContain('Nothing was run (not asking: --no-input was given)');
    expect(await captureStatus(id)).toBe('COMPLETED');
  });
});

describe('7. a declined confirmation', () => {
  it('exits 7 saying nothing was changed, not 130 "INTERRUPTED"; Yes goes ahead', async () => {
    const id = await newCapture('30.00');
    const asked = runInPty(['payments', 'refund', id, '--amount', '2.00'], { env: server.env });
    await asked.waitFor(/\(y\/N\)/);
    asked.type('\r');
    const declined = await asked.done;
    expect(declined.code, declined.screen).toBe(7);
    expect(declined.screen).toContain('DECLINED: nothing was changed');
    expect(declined.screen).not.toContain('INTERRUPTED');
    expect(await captureStatus(id)).toBe('COMPLETED');

    const again = runInPty(['payments', 'refund', id, '--amount', '2.00'], { env: server.env });
    await again.waitFor(/\(y\/N\)/);
    again.type('y\r');
    expect((await again.done).code).toBe(0);
    expect(await captureStatus(id)).toBe('PARTIALLY_REFUNDED');
  });

  it('the exit-code table in --help lists 7', async () => {
    const help = await server.cli('--help');
    expect(help.stdout).toMatch(/\b7 +declined: you answered No at a confirmation; nothing was changed/);
  });
});

describe('8. bulk refunds: progress on a terminal, a useful interrupt', () => {
  // Captures that do not exist: every row is one request, answered 404.
  const missing = (count: number) => Array.from({ length: count }, (_, i) => `NOSUCHCAPTURE${String(i).padStart(5, '0')},,,`);

  it('shows progress on a terminal, never piped or with --json', async () => {
    const file = refundFile('progress.csv', missing(200));
    const watched = runInPty(['payments', 'refund', '--from-file', file, '--yes'], { env: server.env, columns: 160 });
    const shown = await watched.done;
    expect(shown.code, shown.screen).toBe(3);
    expect(shown.screen).toMatch(/Refunding \S+progress\.csv: 200\/200 rows \(0 refunded, 200 failed\)/);

    const piped = await server.cli('payments', 'refund', '--from-file', file, '--yes');
    expect(piped.code).toBe(3);
    expect(piped.stderr).toContain('200 of 200 refund(s) failed');
    expect(piped.stderr).not.toContain('Refunding');

    const json = runInPty(['payments', 'refund', '--from-file', file, '--yes', '--json'], { env: server.env, columns: 160 });
    const quiet = await json.done;
    expect(quiet.code).toBe(3);
    expect(quiet.screen).toContain('"row":200');
    expect(quiet.screen).not.toContain('Refunding');
  });

  it('Ctrl+C says how many rows were done and that re-running the file resumes safely', async () => {
    const file = refundFile('interrupted.csv', missing(3000));
    let printed = 0;
    let interrupted = false;
    const run = await runWithSlowReader(['payments', 'refund', '--from-file', file, '--yes', '--json'], server.env, {
      onLine: (line, kill) => {
        if (line.trim()) printed += 1;
        if (!interrupted && printed >= 5) {
          interrupted = true;
          kill('SIGINT');
        }
      },
    });
    expect(run.code, run.stderr).toBe(130);
    const lines = run.stdout.split('\n').filter(Boolean);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    const match = /interrupted \(Ctrl\+C\) after (\d+) of 3000 row\(s\) of \S+ \(0 refunded, (\d+) failed\)/.exec(run.stderr);
    expect(match, run.stderr).not.toBeNull();
    expect(Number(match?.[1])).toBe(lines.length);
    expect(Number(match?.[1])).toBeLessThan(3000);
    expect(run.stderr).toContain('Re-running the same file resumes safely');
  });
});

describe('10. help and errors', () => {
  it('refund usage is readable and --client-secret is listed', async () => {
    const help = await server.cli('payments', 'refund', '--help');
    expect(help.stdout).not.toContain('| ]');
    expect(help.stdout).toContain('payments refund CAPTURE [--amount DECIMAL [--currency CODE]]');
    expect(help.stdout).toContain('--client-secret=<value>');
  });

  it('a server that is not running: the error says how to start one', async () => {
    const closed = await runCli(['auth', 'status'], { env: { ...server.env, PAYCTL_BASE_URL: 'http://127.0.0.1:9' }, timeoutMs: 60_000 });
    expect(closed.code).toBe(6);
    expect(closed.stderr).toContain('Start one with `payctl serve`');
  }, 90_000);
});

// Last: it moves the account's clock, which every later due date would count from.
describe('6. relative times on the clock the date is on', () => {
  it('a dispute due in 10 days on the account clock, 5 days after opening, is due in 4d 23h (account clock)', async () => {
    const opened = await server.harness.request('POST', '/_payctl/disputes', {
      body: { disputed_transaction_id: await newCapture('15.00'), reason: 'MERCHANDISE_OR_SERVICE_NOT_RECEIVED' },
      headers: { 'service-request-id': randomUUID() },
    });
    expect(opened.status, opened.text).toBe(201);
    const id = opened.body.dispute_id as string;
    const moved = await server.harness.request('POST', '/_payctl/clock', { body: { advance_seconds: 5 * 86_400 } });
    expect(moved.status, moved.text).toBe(200);
    const get = await server.cli('disputes', 'get', id);
    expect(get.code, get.stderr).toBe(0);
    expect(get.stdout).toMatch(/Seller due +\S+ \S+ \(in 4d 23h, account clock\)/);
    const list = await server.cli('disputes', 'list');
    const row = list.stdout.split('\n').find((line) => line.startsWith(`${id}\t`));
    expect(row).toMatch(/\(in 4d 23h, account clock\)$/);

    const trigger = await server.cli('webhooks', 'trigger', 'PAYMENT.CAPTURE.COMPLETED');
    expect(trigger.code, trigger.stderr).toBe(0);
    const time = /^Time\t(\S+ \S+) \(account clock\)$/m.exec(trigger.stdout)?.[1];
    expect(time, trigger.stdout).toBeDefined();
    // Five days ahead of this machine: the event's time is on the account's clock, and says so.
    expect(Math.abs(Date.parse((time ?? '').replace(' ', 'T')) - (Date.now() + 5 * 86_400_000))).toBeLessThan(120_000);
  });

  it('webhooks listen prints the event time on the account clock, as trigger does', async () => {
    const child = spawn(process.execPath, [join(REPO, 'bin/run.js'), 'webhooks', 'listen', '--events', 'PAYMENT.CAPTURE.COMPLETED'], {
      cwd: REPO,
      env: { ...(process.env as Record<string, string>), ...server.env, CI: '1', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: string[] = [];
    createInterface({ input: child.stdout }).on('line', (line) => lines.push(line));
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      await waitUntil(() => stderr.includes('Listening on'), 20_000, `listen to start (stderr: ${stderr})`);
      expect(stderr).toContain("Times are the events' own, on the account's clock.");
      const trigger = await server.cli('webhooks', 'trigger', 'PAYMENT.CAPTURE.COMPLETED', '--json');
      const event = okJson<{ create_time: string; resource: { id: string } }>(trigger);
      await waitUntil(() => lines.some((line) => line.includes(event.resource.id)), 20_000, 'the listen line');
      const line = lines.find((text) => text.includes(event.resource.id)) ?? '';
      // The clock is five days ahead of this machine: the line shows the event's own time.
      expect(line.startsWith(`${event.create_time.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}  PAYMENT.CAPTURE.COMPLETED`), line).toBe(true);
      expect(Date.parse(event.create_time) - Date.now()).toBeGreaterThan(4 * 86_400_000);
    } finally {
      child.kill('SIGINT');
      await exited;
    }
  }, 60_000);
});
