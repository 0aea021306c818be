// payctl webhooks lookups create, list, get, delete: the built binary against a real server.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { ensureBuilt, okJson as json, runCli, serverEnv } from './cli-harness.js';

let harness: TestServer;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  ensureBuilt(['webhooks:lookups:create', 'webhooks:lookups:list', 'webhooks:lookups:get', 'webhooks:lookups:delete']);
  harness = await startTestServer({ memory: true });
  dir = mkdtempSync(join(tmpdir(), 'payctl-lookups-cli-'));
  env = serverEnv(harness, dir);
}, 120_000);

afterAll(async () => {
  await harness?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const cli = (...args: string[]) => runCli(args, { env });

describe('payctl webhooks lookups', () => {
  it('creates, lists (TSV when piped), gets and deletes the app lookup; a second create is refused', async () => {
    const created = json(await cli('webhooks', 'lookups', 'create', '--json'));
    expect(created).toMatchObject({ client_id: harness.merchant.client_id });
    const id = created.id as string;

    const again = await cli('webhooks', 'lookups', 'create', '--json');
    expect([again.code, again.stdout]).toEqual([5, '']);
    expect(JSON.parse(again.stderr).details[0].issue).toBe('WEBHOOK_LOOKUP_ALREADY_EXISTS');

    const listed = await cli('webhooks', 'lookups', 'list');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout.trim().split('\n')).toEqual(['ID\tClient id', `${id}\t${harness.merchant.client_id}`]);
    expect(json(await cli('webhooks', 'lookups', 'get', id, '--json'))).toEqual(created);

    const unconfirmed = await cli('webhooks', 'lookups', 'delete', id);
    expect([unconfirmed.code, unconfirmed.stdout]).toEqual([2, '']);
    expect(unconfirmed.stderr).toContain('--yes');
    expect(json(await cli('webhooks', 'lookups', 'delete', id, '--yes', '--json'))).toEqual({ id, deleted: true });
    const gone = await cli('webhooks', 'lookups', 'get', id);
    expect([gone.code, gone.stdout]).toEqual([3, '']);
    expect(json(await cli('webhooks', 'lookups', 'list', '--json'))).toEqual({ webhooks_lookups: [] });
  });
});
