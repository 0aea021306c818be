// payctl disputes and payctl sandbox dispute open: the built binary against a real server.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { authorize, capture } from '../server/payments-helpers.js';
import { okJson as json, useCliServer } from './cli-harness.js';

let pdf: string;

const server = useCliServer(
  [
    'disputes:list',
    'disputes:get',
    'disputes:send-message',
    'disputes:make-offer',
    'disputes:accept-claim',
    'disputes:provide-evidence',
    'disputes:escalate',
    'disputes:appeal',
    'disputes:acknowledge-return',
    'sandbox:dispute:open',
  ],
  'payctl-disputes-cli-',
);

beforeAll(async () => {
  pdf = join(server.dir, 'receipt.pdf');
  writeFileSync(pdf, Buffer.from('%PDF-1.4\nproof of delivery\n%%EOF\n'));
});

const cli = server.cli;


async function newCapture(value: string): Promise<string> {
  const authId = await authorize(server.harness, value);
  const captured = await capture(server.harness, authId);
  return captured.body.id as string;
}

async function openDispute(value: string, reason = 'MERCHANDISE_OR_SERVICE_NOT_RECEIVED'): Promise<string> {
  const opened = json(await cli('sandbox', 'dispute', 'open', await newCapture(value), '--reason', reason, '--json'));
  return opened.dispute_id as string;
}

const buyer = (id: string, body: unknown) => server.harness.request('POST', `/_payctl/disputes/${id}/buyer`, { body });

describe('payctl sandbox dispute open', () => {
  it('opens a dispute as the buyer would and prints it', async () => {
    const captureId = await newCapture('42.00');
    const result = await cli('sandbox', 'dispute', 'open', captureId, '--reason', 'INCORRECT_AMOUNT', '--amount', '2.50', '--currency', 'USD', '--message', 'Overcharged', '--json');
    const dispute = json(result);
    expect(dispute).toMatchObject({ status: 'WAITING_FOR_SELLER_RESPONSE', reason: 'INCORRECT_AMOUNT', dispute_amount: { value: '2.50', currency_code: 'USD' } });
    expect(dispute.disputed_transactions[0].seller_transaction_id).toBe(captureId);
    const text = await cli('sandbox', 'dispute', 'open', await newCapture('1.00'), '--reason', 'OTHER');
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^Dispute\tPP-D-[A-Z0-9]{12}$/m);
    expect(text.stdout).toMatch(/^Status\tWAITING_FOR_SELLER_RESPONSE$/m);
  });
});

describe('payctl disputes list and get', () => {
  it('lists as TSV when piped and as the API page with --json; get prints a case file', async () => {
    await openDispute('11.00');
    const id = await openDispute('10.00');
    const piped = await cli('disputes', 'list');
    expect(piped.code, piped.stderr).toBe(0);
    const lines = piped.stdout.trim().split('\n');
    expect(lines[0]).toBe('ID\tReason\tStage\tStatus\tAmount\tSeller due');
    const row = lines.find((line) => line.startsWith(`${id}\t`));
    expect(row?.split('\t').slice(0, 5)).toEqual([id, 'MERCHANDISE_OR_SERVICE_NOT_RECEIVED', 'INQUIRY', 'WAITING_FOR_SELLER_RESPONSE', '10.00 USD']);
    expect(row?.split('\t')[5]).toMatch(/\(in 9d 23h, account clock\)$/);

    const page = json(await cli('disputes', 'list', '--state', 'REQUIRED_ACTION', '--page-size', '1', '--all', '--json'));
    expect(page.items.map((item: { dispute_id: string }) => item.dispute_id)).toContain(id);
    expect(page.items.length).toBeGreaterThan(1);

    const api = await server.harness.request('GET', `/v1/customer/disputes/${id}`);
    expect(json(await cli('disputes', 'get', id, '--json'))).toEqual(api.body);

    const file = await cli('disputes', 'get', id);
    expect(file.code).toBe(0);
    for (const heading of ['Summary', 'Transaction', 'Timeline', 'Next']) expect(file.stdout).toContain(heading);
    expect(file.stdout).toContain('opened the dispute (MERCHANDISE_OR_SERVICE_NOT_RECEIVED)');
    expect(file.stdout).toContain(`payctl disputes send-message ${id} --message`);
    expect(file.stdout).toContain(`payctl disputes accept-claim ${id}`);
  });

  it('exit codes: 3 for an unknown dispute, 4 for a simulated FORBIDDEN, 2 for a bad state', async () => {
    const unknown = await cli('disputes', 'get', 'PP-D-NOSUCHDISPUT');
    expect([unknown.code, unknown.stdout]).toEqual([3, '']);
    expect(unknown.stderr).toContain('RESOURCE_NOT_FOUND');
    const forbidden = await cli('disputes', 'get', 'ERRDIS015', '--json');
    expect([forbidden.code, forbidden.stdout]).toEqual([4, '']);
    expect(JSON.parse(forbidden.stderr)).toMatchObject({ name: 'FORBIDDEN', status: 403 });
    const bad = await cli('disputes', 'list', '--state', 'NOPE');
    expect(bad.code).toBe(2);
  });
});

describe('answering a dispute from the CLI', () => {
  it('message with a file, offer, evidence, appeal; a refused action exits 5', async () => {
    const id = await openDispute('100.00');
    const message = json(await cli('disputes', 'send-message', id, '--message', 'Shipped Monday', '--file', pdf, '--json'));
    expect(message.status).toBe('WAITING_FOR_BUYER_RESPONSE');
    expect(message.messages.at(-1)).toMatchObject({ posted_by: 'SELLER', content: 'Shipped Monday', documents: [{ name: 'receipt.pdf' }] });

    await buyer(id, { action: 'message', message: 'Not here yet' });
    const offer = json(await cli('disputes', 'make-offer', id, '--type', 'REFUND', '--amount', '10', '--note', 'A goodwill refund', '--json'));
    expect(offer.offer).toMatchObject({ offer_type: 'REFUND', seller_offered_amount: { currency_code: 'USD', value: '10.00' } });
    const again = await cli('disputes', 'make-offer', id, '--type', 'REFUND', '--amount', '12.00', '--note', 'More');
    expect([again.code, again.stdout]).toEqual([5, '']);
    expect(again.stderr).toContain('INVALID_DISPUTE_STATUS');

    await buyer(id, { action: 'deny-offer', note: 'No' });
    await buyer(id, { action: 'escalate', note: 'Decide please' });
    const noCarrier = await cli('disputes', 'provide-evidence', id, '--type', 'PROOF_OF_FULFILLMENT', '--tracking-number', '1Z');
    expect(noCarrier.code).toBe(2);
    const text = join(server.dir, 'notes.txt');
    writeFileSync(text, 'hello');
    const wrongExtension = await cli('disputes', 'provide-evidence', id, '--notes', 'n', '--file', text);
    expect(wrongExtension.code).toBe(2);
    expect(wrongExtension.stderr).toContain('.pdf');
    const fake = join(server.dir, 'fake.pdf');
    writeFileSync(fake, 'not a pdf');
    const badBytes = await cli('disputes', 'provide-evidence', id, '--notes', 'n', '--file', fake, '--json');
    expect(badBytes.code).toBe(2);
    expect(JSON.parse(badBytes.stderr).details[0].issue).toBe('INVALID_EVIDENCE_FILE');

    const evidence = json(
      await cli('disputes', 'provide-evidence', id, '--type', 'PROOF_OF_FULFILLMENT', '--carrier', 'ups', '--tracking-number', '1Z999', '--file', pdf, '--json'),
    );
    expect(evidence).toMatchObject({ status: 'UNDER_REVIEW', dispute_life_cycle_stage: 'CHARGEBACK' });
    expect(evidence.evidences[0]).toMatchObject({ evidence_type: 'PROOF_OF_FULFILLMENT', evidence_info: { tracking_info: [{ carrier_name: 'UPS', tracking_number: '1Z999' }] } });

    const decided = await server.harness.request('POST', `/v1/customer/disputes/${id}/adjudicate`, { body: { adjudication_outcome: 'BUYER_FAVOR' } });
    expect(decided.status).toBe(200);
    const caseFile = await cli('disputes', 'get', id);
    expect(caseFile.stdout).toContain(`payctl disputes appeal ${id}`);
    expect(caseFile.stdout).toContain('decision PAYOUT_TO_BUYER in CHARGEBACK');
    expect(caseFile.stdout).toContain('offer denied REFUND 10.00 USD');

    const appealed = json(await cli('disputes', 'appeal', id, '--type', 'PROOF_OF_DELIVERY_SIGNATURE', '--notes', 'Signed', '--file', pdf, '--json'));
    expect(appealed).toMatchObject({ status: 'UNDER_REVIEW', dispute_life_cycle_stage: 'PRE_ARBITRATION' });
  });

  it('accept-claim asks first: without a terminal it needs --yes, then it refunds', async () => {
    const id = await openDispute('30.00');
    const refused = await cli('disputes', 'accept-claim', id, '--note', 'ok');
    expect([refused.code, refused.stdout]).toEqual([2, '']);
    expect(refused.stderr).toContain('--yes');
    expect((await server.harness.request('GET', `/v1/customer/disputes/${id}`)).body.status).toBe('WAITING_FOR_SELLER_RESPONSE');
    const accepted = json(await cli('disputes', 'accept-claim', id, '--note', 'ok', '--type', 'PARTIAL_REFUND', '--amount', '5.00', '--yes', '--json'));
    expect(accepted).toMatchObject({ status: 'RESOLVED', dispute_outcome: { outcome_code: 'RESOLVED_BUYER_FAVOUR', amount_refunded: { value: '5.00' } } });
  });

  it('escalate, and a return acknowledged with acknowledge-return', async () => {
    const escalated = json(await cli('disputes', 'escalate', await openDispute('15.00'), '--note', 'Please decide', '--json'));
    expect(escalated.dispute_life_cycle_stage).toBe('CHARGEBACK');

    const id = await openDispute('60.00', 'MERCHANDISE_OR_SERVICE_NOT_AS_DESCRIBED');
    const returning = json(
      await cli('disputes', 'accept-claim', id, '--note', 'Send it back', '--type', 'REFUND_WITH_RETURN', '--return-country', 'us', '--return-line1', '1 Main St', '--return-city', 'San Jose', '--return-postal-code', '95131', '--yes', '--json'),
    );
    expect(returning.status).toBe('WAITING_FOR_BUYER_RESPONSE');
    expect((await buyer(id, { action: 'return-item' })).status).toBe(200);
    const acknowledged = json(await cli('disputes', 'acknowledge-return', id, '--type', 'ITEM_RECEIVED', '--note', 'Received', '--json'));
    expect(acknowledged).toMatchObject({ status: 'RESOLVED', dispute_outcome: { amount_refunded: { value: '60.00' } } });
  });
});
