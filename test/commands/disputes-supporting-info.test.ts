// payctl disputes provide-supporting-info and update-contact: the built binary against a real server.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { authorize, capture } from '../server/payments-helpers.js';
import { okJson as json, useCliServer } from './cli-harness.js';

const server = useCliServer(['disputes:provide-supporting-info', 'disputes:update-contact', 'disputes:get'], 'payctl-supporting-cli-');
const cli = server.cli;
let pdf: string;

beforeAll(() => {
  pdf = join(server.dir, 'slip.pdf');
  writeFileSync(pdf, Buffer.from('%PDF-1.4\nsigned slip\n%%EOF\n'));
});

/** A dispute on a fresh capture, escalated to a claim when `claim`. */
async function disputed(claim: boolean): Promise<string> {
  const captured = await capture(server.harness, await authorize(server.harness, '15.00'));
  const opened = await server.harness.request('POST', '/_payctl/disputes', {
    body: { disputed_transaction_id: captured.body.id, reason: 'MERCHANDISE_OR_SERVICE_NOT_RECEIVED' },
  });
  const id = opened.body.dispute_id as string;
  if (claim) await server.harness.request('POST', `/_payctl/disputes/${id}/buyer`, { body: { action: 'escalate', note: 'n' } });
  return id;
}

describe('payctl disputes provide-supporting-info', () => {
  it('sends notes and a file to a claim: the dispute with --json, the headline and next steps otherwise', async () => {
    const id = await disputed(true);
    const dispute = json(await cli('disputes', 'provide-supporting-info', id, '--notes', 'Signed slip attached', '--file', pdf, '--json'));
    expect(dispute.supporting_info).toEqual([
      {
        notes: 'Signed slip attached',
        source: 'SUBMITTED_BY_SELLER',
        provided_time: expect.any(String),
        dispute_life_cycle_stage: 'CHARGEBACK',
        documents: [{ name: 'slip.pdf', url: expect.stringContaining(`/v1/customer/disputes/${id}/documents/`) }],
      },
    ]);
    const text = await cli('disputes', 'provide-supporting-info', id, '--notes', 'More');
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`^Dispute\\t${id}$`, 'm'));
    expect(text.stdout).toContain(`payctl disputes provide-supporting-info ${id} --notes`);
    expect((await server.harness.request('GET', `/v1/customer/disputes/${id}`)).body.supporting_info).toHaveLength(2);
  });

  it('exit codes: 5 in an inquiry, 2 with neither notes nor file, 3 for an unknown dispute', async () => {
    const inquiry = await disputed(false);
    const refused = await cli('disputes', 'provide-supporting-info', inquiry, '--notes', 'n', '--json');
    expect([refused.code, refused.stdout]).toEqual([5, '']);
    expect(JSON.parse(refused.stderr).details[0].issue).toBe('INVALID_DISPUTE_STAGE');
    const empty = await cli('disputes', 'provide-supporting-info', inquiry);
    expect([empty.code, empty.stdout]).toEqual([2, '']);
    expect(empty.stderr).toContain('--notes');
    const unknown = await cli('disputes', 'provide-supporting-info', 'PP-D-NOSUCHDISPUT', '--notes', 'n');
    expect([unknown.code, unknown.stdout]).toEqual([3, '']);
  });
});

describe('payctl disputes update-contact', () => {
  it('sets the communication details: the dispute with --json, its rows otherwise; exit 2 with nothing to set', async () => {
    const id = await disputed(false);
    const dispute = json(await cli('disputes', 'update-contact', id, '--email', 'returns@example.com', '--note', 'Photos welcome', '--json'));
    expect(dispute.communication_details).toEqual({ email: 'returns@example.com', note: 'Photos welcome', time_posted: expect.any(String) });
    const text = await cli('disputes', 'update-contact', id, '--email', 'help@example.com');
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^Contact email\thelp@example.com$/m);
    expect((await server.harness.request('GET', `/v1/customer/disputes/${id}`)).body.communication_details).toMatchObject({ email: 'help@example.com' });
    const nothing = await cli('disputes', 'update-contact', id);
    expect([nothing.code, nothing.stdout]).toEqual([2, '']);
    const bad = await cli('disputes', 'update-contact', id, '--email', 'nope', '--json');
    expect([bad.code, bad.stdout]).toEqual([2, '']);
    expect(JSON.parse(bad.stderr).details[0]).toMatchObject({ field: '/0/value/email' });
  });
});
