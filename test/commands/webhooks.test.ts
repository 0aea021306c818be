// payctl webhooks, from the built binary against the real server: subscriptions, trigger,
// events, deliveries, verify, and `listen --forward-to` end to end.

import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { emitEvent, startReceiver, subscribe, verificationRequest, waitUntil, type Receiver } from '../server/webhooks-support.js';
import { okJson as json, REPO, useCliServer } from './cli-harness.js';

const COMMANDS = [
  'webhooks:create',
  'webhooks:list',
  'webhooks:get',
  'webhooks:update',
  'webhooks:delete',
  'webhooks:event-types',
  'webhooks:listen',
  'webhooks:trigger',
  'webhooks:deliveries',
  'webhooks:verify',
  'webhooks:events:list',
  'webhooks:events:get',
  'webhooks:events:resend',
];

const server = useCliServer(COMMANDS, 'payctl-webhooks-cli-', { setUpTimeoutMs: 180_000 });

const cli = server.cli;


describe('subscriptions', () => {
  it('creates with globs, lists, shows, updates and deletes', async () => {
    const created = json(await cli('webhooks', 'create', '--url', 'http://127.0.0.1:9/hooks', '--events', 'PAYMENT.CAPTURE.*,CUSTOMER.DISPUTE.CREATED', '--json'));
    expect(created.id).toMatch(/^[A-Z0-9]{17}$/);
    expect(created.event_types.map((type: { name: string }) => type.name)).toEqual([
      'PAYMENT.CAPTURE.COMPLETED',
      'PAYMENT.CAPTURE.PENDING',
      'PAYMENT.CAPTURE.DECLINED',
      'PAYMENT.CAPTURE.DENIED',
      'PAYMENT.CAPTURE.REFUNDED',
      'PAYMENT.CAPTURE.REVERSED',
      'CUSTOMER.DISPUTE.CREATED',
    ]);

    const table = await cli('webhooks', 'list');
    expect(table.code).toBe(0);
    const [header, row] = table.stdout.trim().split('\n');
    expect(header).toBe('ID\tURL\tEvents');
    expect(row).toBe(`${created.id}\thttp://127.0.0.1:9/hooks\t${created.event_types.map((type: { name: string }) => type.name).join(',')}`);

    expect(json(await cli('webhooks', 'get', created.id, '--json'))).toEqual(created);
    const updated = json(await cli('webhooks', 'update', created.id, '--url', 'http://127.0.0.1:9/new', '--events', '*', '--json'));
    expect(updated).toMatchObject({ id: created.id, url: 'http://127.0.0.1:9/new', event_types: [{ name: '*' }] });
    expect(json(await cli('webhooks', 'event-types', created.id, '--json')).event_types.map((type: { name: string }) => type.name)).toEqual(['*']);

    const unconfirmed = await cli('webhooks', 'delete', created.id);
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stdout).toBe('');
    expect(unconfirmed.stderr).toContain('--yes');
    expect(json(await cli('webhooks', 'delete', created.id, '--yes', '--json'))).toEqual({ id: created.id, deleted: true });
    const gone = await cli('webhooks', 'get', created.id, '--json');
    expect(gone.code).toBe(3);
    expect(gone.stdout).toBe('');
    expect(JSON.parse(gone.stderr).name).toBe('RESOURCE_NOT_FOUND');
  });

  it.each([
    [['--url', 'http://169.254.169.254/', '--events', '*'], 2, 'INVALID_REQUEST'],
    [['--url', 'http://127.0.0.1:9/', '--events', 'NOTHING.*'], 2, 'USAGE_ERROR'],
  ])('create %j exits %i with %s', async (args, code, name) => {
    const result = await cli('webhooks', 'create', ...args, '--json');
    expect(result.code).toBe(code);
    expect(result.stdout).toBe('');
    expect(JSON.parse(result.stderr).name).toBe(name);
  });

  it('lists every event type', async () => {
    const types = json(await cli('webhooks', 'event-types', '--json'));
    expect(types.event_types.length).toBeGreaterThan(20);
    expect(types.event_types).toContainEqual(expect.objectContaining({ name: 'PAYMENT.CAPTURE.REFUNDED', description: expect.any(String) }));
  });
});

describe('listen --forward-to', () => {
  let child: ChildProcess | undefined;
  let target: Receiver;

  afterAll(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await target?.close();
  });

  it('subscribes, forwards each delivery unchanged, shows the answer, and unsubscribes on Ctrl-C', async () => {
    let targetStatus = 201;
    target = await startReceiver(() => ({ status: targetStatus }));
    const childEnv: Record<string, string> = { ...(process.env as Record<string, string>), ...server.env, CI: '1', NO_COLOR: '1' };
    child = spawn(process.execPath, [join(REPO, 'bin/run.js'), 'webhooks', 'listen', '--forward-to', `${target.url}/app`, '--events', 'PAYMENT.CAPTURE.*', '--json'], {
      env: childEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const records: Array<Record<string, any>> = [];
    createInterface({ input: child.stdout! }).on('line', (line) => records.push(JSON.parse(line) as Record<string, any>));
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
    await waitUntil(() => stderr.includes('Listening on'), 20_000, `listen to start (stderr: ${stderr})`);
    const webhookId = /as webhook ([A-Z0-9]+)/.exec(stderr)?.[1] as string;
    const hooks = (await server.harness.request('GET', '/v1/notifications/webhooks')).body.webhooks;
    expect(hooks.map((hook: { id: string }) => hook.id)).toContain(webhookId);
    expect(hooks.find((hook: { id: string }) => hook.id === webhookId).url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);

    // A real capture made by `webhooks trigger`.
    const event = json(await cli('webhooks', 'trigger', 'PAYMENT.CAPTURE.COMPLETED', '--json'));
    expect(event.event_type).toBe('PAYMENT.CAPTURE.COMPLETED');
    const captureId = event.resource.id as string;
    await waitUntil(() => records.some((record) => record.event_id === event.id), 10_000, 'the listen line');
    const record = records.find((r) => r.event_id === event.id) as Record<string, any>;
    expect(record).toMatchObject({
      event_type: 'PAYMENT.CAPTURE.COMPLETED',
      resource_id: captureId,
      path: `/captures/${captureId}`,
      webhook_id: webhookId,
      signature_valid: true,
      forwarded_to: `${target.url}/app/captures/${captureId}`,
      status: 201,
      error: null,
    });
    const forwarded = target.received.find((r) => JSON.parse(r.body).id === event.id);
    expect(forwarded?.path).toBe(`/app/captures/${captureId}`);
    const stored = await server.harness.request('GET', `/v1/notifications/webhooks-events/${event.id}`);
    expect(forwarded?.body).toBe(JSON.stringify(stored.body));
    const verified = await server.harness.request('POST', '/v1/notifications/verify-webhook-signature', { body: verificationRequest(forwarded!, webhookId) });
    expect(verified.body.verification_status).toBe('SUCCESS');
    await waitUntil(async () => {
      const [delivery] = (await server.harness.request('GET', `/_payctl/deliveries?event_id=${event.id}&webhook_id=${webhookId}`)).body.deliveries;
      return delivery?.status === 'DELIVERED';
    }, 5_000, 'the delivery to be recorded');
    const delivered = (await server.harness.request('GET', `/_payctl/deliveries?event_id=${event.id}&webhook_id=${webhookId}`)).body.deliveries[0];
    expect(delivered).toMatchObject({ status: 'DELIVERED', last_status_code: 201 });

    // A failing target: listen says so, and the service keeps the delivery for a retry.
    targetStatus = 500;
    const second = json(await cli('webhooks', 'trigger', 'PAYMENT.CAPTURE.DECLINED', '--json'));
    await waitUntil(() => records.some((r) => r.event_id === second.id), 10_000, 'the second listen line');
    expect(records.find((r) => r.event_id === second.id)).toMatchObject({ status: 500, path: `/captures/${second.resource.id}/declined` });
    await waitUntil(async () => {
      const [delivery] = (await server.harness.request('GET', `/_payctl/deliveries?event_id=${second.id}`)).body.deliveries;
      return delivery?.attempt_count === 1;
    }, 5_000, 'the failed attempt');
    const retry = (await server.harness.request('GET', `/_payctl/deliveries?event_id=${second.id}`)).body.deliveries[0];
    expect(retry).toMatchObject({ status: 'PENDING', last_status_code: 500 });

    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(stderr).toContain(`removing webhook ${webhookId}`);
    const after = (await server.harness.request('GET', '/v1/notifications/webhooks')).body.webhooks;
    expect(after.map((hook: { id: string }) => hook.id)).not.toContain(webhookId);
  }, 60_000);
});

describe('listen --poll', () => {
  it('follows the event history and prints new events as NDJSON', async () => {
    const childEnv: Record<string, string> = { ...(process.env as Record<string, string>), ...server.env, CI: '1', NO_COLOR: '1' };
    const child = spawn(process.execPath, [join(REPO, 'bin/run.js'), 'webhooks', 'listen', '--poll', '--events', 'PAYMENT.CAPTURE.REFUNDED', '--json'], {
      env: childEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const records: Array<Record<string, any>> = [];
      createInterface({ input: child.stdout! }).on('line', (line) => records.push(JSON.parse(line) as Record<string, any>));
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      await waitUntil(() => stderr.includes('Following the event history'), 20_000, `listen --poll to start (stderr: ${stderr})`);
      const skipped = await emitEvent(server.harness, { eventType: 'PAYMENT.CAPTURE.COMPLETED', resourceType: 'capture', resourceId: 'POLL0000000000001' });
      const wanted = await emitEvent(server.harness, { eventType: 'PAYMENT.CAPTURE.REFUNDED', resourceType: 'refund', resourceId: 'POLL0000000000002' });
      await waitUntil(() => records.length >= 1, 10_000, 'the polled event');
      expect(records).toHaveLength(1);
      expect(records[0]).toMatchObject({ event_id: wanted.id, event_type: 'PAYMENT.CAPTURE.REFUNDED', signature_valid: null, path: null });
      expect(records.some((record) => record.event_id === skipped.id)).toBe(false);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 60_000);
});

describe('trigger --simulate and verify', () => {
  it('sends a sample to a URL, and verify says SUCCESS, then FAILURE for one changed byte', async () => {
    const receiver = await startReceiver();
    try {
      const event = json(await cli('webhooks', 'trigger', 'CUSTOMER.DISPUTE.CREATED', '--simulate', '--url', `${receiver.url}/sim`, '--json'));
      expect(event).toMatchObject({ event_type: 'CUSTOMER.DISPUTE.CREATED', resource_type: 'dispute' });
      const [delivery] = await receiver.waitFor(1);
      expect(delivery?.path).toBe(`/sim/disputes/${event.resource.dispute_id}`);
      const headersJson = join(server.dir, 'headers.json');
      const headersText = join(server.dir, 'headers.txt');
      const body = join(server.dir, 'body.json');
      writeFileSync(headersJson, JSON.stringify(delivery?.headers));
      writeFileSync(headersText, Object.entries(delivery?.headers ?? {}).map(([name, value]) => `${name.toUpperCase()}: ${value}`).join('\r\n'));
      writeFileSync(body, delivery?.body ?? '');
      const asService = await cli('webhooks', 'verify', '--webhook-id', 'WEBHOOK_ID', '--headers', headersJson, '--body', body, '--json');
      expect(json(asService)).toEqual({ verification_status: 'SUCCESS' });
      const locally = await cli('webhooks', 'verify', '--webhook-id', 'WEBHOOK_ID', '--headers', headersText, '--body', body, '--local', '--json');
      expect(json(locally)).toEqual({ verification_status: 'SUCCESS' });

      writeFileSync(body, (delivery?.body ?? '').replace('"OPEN"', '"OPEM"'));
      for (const extra of [[], ['--local']]) {
        const failed = await cli('webhooks', 'verify', '--webhook-id', 'WEBHOOK_ID', '--headers', headersJson, '--body', body, ...extra, '--json');
        expect(failed.code).toBe(1);
        expect(JSON.parse(failed.stdout)).toEqual({ verification_status: 'FAILURE' });
      }
      const wrongHook = await cli('webhooks', 'verify', '--webhook-id', 'OTHER', '--headers', headersJson, '--body', body, '--local');
      expect(wrongHook.code).toBe(1);
      expect(wrongHook.stdout.trim()).toBe('Verification\tFAILURE');
    } finally {
      await receiver.close();
    }
  });

  it.each([
    ['PAYMENT.AUTHORIZATION.CREATED', 'authorization'],
    ['PAYMENT.CAPTURE.PENDING', 'capture'],
    ['PAYMENT.CAPTURE.REFUNDED', 'refund'],
    ['CHECKOUT.ORDER.APPROVED', 'checkout-order'],
    ['CHECKOUT.ORDER.COMPLETED', 'checkout-order'],
  ])('trigger %s runs the real flow and prints the recorded event', async (eventType, resourceType) => {
    const event = json(await cli('webhooks', 'trigger', eventType, '--json'));
    expect(event).toMatchObject({ event_type: eventType, resource_type: resourceType });
    const stored = await server.harness.request('GET', `/v1/notifications/webhooks-events/${event.id}`);
    expect(stored.body).toEqual(event);
  });

  it('refuses a real flow it does not know, and --simulate without a target', async () => {
    const unknown = await cli('webhooks', 'trigger', 'CUSTOMER.DISPUTE.CREATED');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--simulate');
    const noTarget = await cli('webhooks', 'trigger', 'INVOICING.INVOICE.PAID', '--simulate');
    expect(noTarget.code).toBe(2);
    expect(noTarget.stderr).toContain('--webhook-id or --url');
  });
});

describe('events and deliveries', () => {
  it('lists, shows and resends events, and shows the deliveries', async () => {
    const receiver = await startReceiver();
    try {
      const event = json(await cli('webhooks', 'trigger', 'PAYMENT.AUTHORIZATION.VOIDED', '--json'));
      const list = json(await cli('webhooks', 'events', 'list', '--event-type', 'PAYMENT.AUTHORIZATION.VOIDED', '--json'));
      expect(list.events[0]).toEqual(event);
      const tsv = await cli('webhooks', 'events', 'list', '--transaction-id', event.resource.id);
      expect(tsv.stdout.trim().split('\n')[1]?.split('\t').slice(0, 4)).toEqual([
        event.id,
        expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ$/),
        'PAYMENT.AUTHORIZATION.VOIDED',
        event.resource.id,
      ]);
      expect(json(await cli('webhooks', 'events', 'get', event.id, '--json'))).toEqual(event);

      const hook = await subscribe(server.harness, receiver.url, ['PAYMENT.AUTHORIZATION.VOIDED']);
      const resent = json(await cli('webhooks', 'events', 'resend', event.id, '--webhook-id', hook, '--json'));
      expect(resent.id).toBe(event.id);
      const [delivery] = await receiver.waitFor(1);
      expect(delivery?.path).toBe(`/authorizations/${event.resource.id}/void`);
      await waitUntil(async () => (await server.harness.request('GET', `/_payctl/deliveries?event_id=${event.id}`)).body.deliveries[0]?.status === 'DELIVERED');
      const log = json(await cli('webhooks', 'deliveries', '--event', event.id, '--json'));
      expect(log.deliveries).toHaveLength(1);
      expect(log.deliveries[0]).toMatchObject({ kind: 'RESEND', status: 'DELIVERED', webhook_id: hook, attempt_count: 1 });
      expect(log.deliveries[0].attempts[0]).toMatchObject({ number: 1, status_code: 200, error: null });
      const table = await cli('webhooks', 'deliveries', '--event', event.id);
      expect(table.stdout.split('\n')[0]).toBe('Event\tType\tStatus\tAttempts\tLast result\tNext attempt\tURL');
      expect(table.stdout.split('\n')[1]).toContain('\tDELIVERED\t1\t200\t');
      await server.harness.request('DELETE', `/v1/notifications/webhooks/${hook}`);
    } finally {
      await receiver.close();
    }
  });

  it('exits 3 for an unknown event', async () => {
    const result = await cli('webhooks', 'events', 'get', 'WH-NOPE', '--json');
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
  });
});
