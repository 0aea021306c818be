// payctl webhooks lookups create, list, get, delete: the built binary against a real server.

import { describe, expect, it } from 'vitest';
import { okJson as json, useCliServer } from './cli-harness.js';

const server = useCliServer(['webhooks:lookups:create', 'webhooks:lookups:list', 'webhooks:lookups:get', 'webhooks:lookups:delete'], 'payctl-lookups-cli-');
const cli = server.cli;

describe('payctl webhooks lookups', () => {
  it('creates, lists (TSV when piped), gets and deletes the app lookup; a second create is refused', async () => {
    const created = json(await cli('webhooks', 'lookups', 'create', '--json'));
    expect(created).toMatchObject({ client_id: server.harness.merchant.client_id });
    const id = created.id as string;

    const again = await cli('webhooks', 'lookups', 'create', '--json');
    expect([again.code, again.stdout]).toEqual([5, '']);
    expect(JSON.parse(again.stderr).details[0].issue).toBe('WEBHOOK_LOOKUP_ALREADY_EXISTS');

    const listed = await cli('webhooks', 'lookups', 'list');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout.trim().split('\n')).toEqual(['ID\tClient id', `${id}\t${server.harness.merchant.client_id}`]);
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
