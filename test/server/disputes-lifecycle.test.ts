// The dispute lifecycle over HTTP: inquiry, offers, escalation, evidence, decisions, appeals, returns,
// the money each outcome moves on the capture, deadlines on the account clock, events and tenancy.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { authorize, capture, outbox, refund } from './payments-helpers.js';

let t: TestServer;
const DAY = 86_400;
const REPRESENTATION = { prefer: 'return=representation' };
const PDF = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.from('receipt body\n%%EOF\n')]);

beforeAll(async () => {
  t = await startTestServer({ memory: true });
});
afterAll(async () => {
  await t.close();
});

/** A COMPLETED capture of `value` USD for the default merchant, or the merchant of `token`. */
async function capturedPayment(_t: TestServer, value: string, _currency = 'USD', token?: string): Promise<{ captureId: string }> {
  const authId = await authorize(t, value, 'USD', token ? { token } : {});
  const captured = await capture(t, authId, {}, {}, token);
  if (captured.status !== 200) throw new Error(`capture failed: ${captured.status} ${captured.text}`);
  return { captureId: captured.body.id as string };
}

async function openDispute(captureId: string, reason: string, extra: Record<string, unknown> = {}, token?: string) {
  const opened = await t.request('POST', '/_payctl/disputes', {
    body: { disputed_transaction_id: captureId, reason, ...extra },
    ...(token ? { token } : {}),
  });
  expect(opened.status, opened.text).toBe(201);
  return opened.body;
}

async function disputed(value: string, reason = 'MERCHANDISE_OR_SERVICE_NOT_RECEIVED', extra: Record<string, unknown> = {}) {
  const { captureId } = await capturedPayment(t, value);
  const dispute = await openDispute(captureId, reason, extra);
  return { captureId, id: dispute.dispute_id as string, dispute };
}

const seller = (id: string, action: string, body: unknown) =>
  t.request('POST', `/v1/customer/disputes/${id}/${action}`, { body, headers: REPRESENTATION });
const buyer = (id: string, body: unknown) => t.request('POST', `/_payctl/disputes/${id}/buyer`, { body });
const show = async (id: string) => (await t.request('GET', `/v1/customer/disputes/${id}`)).body;
const rels = (resource: { links: Array<{ rel: string }> }) => resource.links.map((link) => link.rel).sort();
const captureOf = async (id: string) => (await t.request('GET', `/v2/payments/captures/${id}`, { headers: REPRESENTATION })).body;

async function balance(accountId = t.merchant.payer_id): Promise<bigint> {
  const row = await t.server.db.selectFrom('balances').select('available_minor').where('account_id', '=', accountId).where('currency', '=', 'USD').executeTakeFirst();
  return row?.available_minor ?? 0n;
}

async function postForm(id: string, action: string, input: unknown, files: Array<{ name: string; type: string; bytes: Buffer }>) {
  const form = new FormData();
  form.append('input', JSON.stringify(input));
  for (const file of files) form.append('evidence-file', new Blob([file.bytes], { type: file.type }), file.name);
  const response = await fetch(`${t.url}/v1/customer/disputes/${id}/${action}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.merchant.token}`, ...REPRESENTATION },
    body: form,
  });
  return { status: response.status, body: (await response.json()) as any };
}

async function expectRefused(response: { status: number; body: any }, status: number, name: string, issue: string) {
  expect([response.status, response.body.name, response.body.details?.[0]?.issue], JSON.stringify(response.body)).toEqual([status, name, issue]);
}

describe('opening a dispute (buyer side, control plane)', () => {
  it('opens an inquiry waiting for the seller, with the seller actions as links and a CREATED event', async () => {
    const { captureId, id, dispute } = await disputed('100.00');
    expect(dispute).toMatchObject({
      reason: 'MERCHANDISE_OR_SERVICE_NOT_RECEIVED',
      status: 'WAITING_FOR_SELLER_RESPONSE',
      dispute_life_cycle_stage: 'INQUIRY',
      dispute_channel: 'INTERNAL',
      dispute_amount: { currency_code: 'USD', value: '100.00' },
      refund_details: { allowed_refund_amount: { currency_code: 'USD', value: '100.00' } },
      allowed_response_options: {
        accept_claim: { accept_claim_types: ['REFUND', 'PARTIAL_REFUND'] },
        make_offer: { offer_types: ['REFUND', 'REFUND_WITH_REPLACEMENT', 'REPLACEMENT_WITHOUT_REFUND'] },
      },
      buyer_actions: ['message', 'escalate'],
    });
    expect(id).toMatch(/^PP-D-[A-Z0-9]{12}$/);
    expect(dispute.disputed_transactions[0]).toMatchObject({ seller_transaction_id: captureId, transaction_status: 'COMPLETED', gross_amount: { value: '100.00' } });
    expect(Date.parse(dispute.seller_response_due_date) - Date.parse(dispute.create_time)).toBe(10 * DAY * 1000);
    expect(rels(dispute)).toEqual(['accept_claim', 'escalate', 'make_offer', 'provide_evidence', 'self', 'send_message']);
    const events = (await outbox(t)).filter((row) => row.resource_id === id);
    expect(events.map((row) => row.event_type)).toEqual(['CUSTOMER.DISPUTE.CREATED']);
    expect(events[0]?.envelope.resource.dispute_id).toBe(id);
  });

  it('refuses a second open dispute, an amount over the capture, and unknown or foreign captures', async () => {
    const { captureId } = await disputed('20.00');
    const again = await t.request('POST', '/_payctl/disputes', { body: { disputed_transaction_id: captureId, reason: 'OTHER' } });
    await expectRefused(again, 422, 'UNPROCESSABLE_ENTITY', 'TRANSACTION_ALREADY_DISPUTED');
    const other = await capturedPayment(t, '20.00');
    const tooMuch = await t.request('POST', '/_payctl/disputes', {
      body: { disputed_transaction_id: other.captureId, reason: 'OTHER', amount: { currency_code: 'USD', value: '20.01' } },
    });
    await expectRefused(tooMuch, 422, 'UNPROCESSABLE_ENTITY', 'DISPUTE_AMOUNT_EXCEEDS_TRANSACTION');
    const unknown = await t.request('POST', '/_payctl/disputes', { body: { disputed_transaction_id: 'NOSUCHCAPTURE0001', reason: 'OTHER' } });
    await expectRefused(unknown, 404, 'RESOURCE_NOT_FOUND', 'INVALID_RESOURCE_ID');
  });
});

describe('the whole lifecycle: inquiry, offer, escalation, evidence, decision, appeal', () => {
  it('moves status, stage, links and money at each step', async () => {
    const { captureId, id } = await disputed('100.00', 'MERCHANDISE_OR_SERVICE_NOT_RECEIVED', { message: 'Never arrived.' });
    const startBalance = await balance();

    let step = await seller(id, 'send-message', { message: 'It was shipped on Monday.' });
    expect(step.status).toBe(200);
    expect(step.body).toMatchObject({ status: 'WAITING_FOR_BUYER_RESPONSE', dispute_life_cycle_stage: 'INQUIRY' });
    expect(step.body.messages.map((m: { posted_by: string }) => m.posted_by)).toEqual(['BUYER', 'SELLER']);
    expect(rels(step.body)).toEqual(['accept_claim', 'escalate', 'self', 'send_message']);

    step = await buyer(id, { action: 'message', message: 'Still nothing.' });
    expect(step.body.status).toBe('WAITING_FOR_SELLER_RESPONSE');

    step = await seller(id, 'make-offer', { note: 'Partial refund?', offer_type: 'REFUND', offer_amount: { currency_code: 'USD', value: '30.00' } });
    expect(step.status).toBe(200);
    expect(step.body.status).toBe('WAITING_FOR_BUYER_RESPONSE');
    expect(step.body.offer).toMatchObject({ offer_type: 'REFUND', seller_offered_amount: { value: '30.00' }, buyer_requested_amount: { value: '100.00' } });
    await expectRefused(
      await seller(id, 'make-offer', { note: 'again', offer_type: 'REFUND', offer_amount: { currency_code: 'USD', value: '40.00' } }),
      422,
      'UNPROCESSABLE_ENTITY',
      'INVALID_DISPUTE_STATUS',
    );

    step = await buyer(id, { action: 'deny-offer', note: 'Not enough.' });
    expect(step.body.status).toBe('WAITING_FOR_SELLER_RESPONSE');
    expect(step.body.offer.history.map((h: { event_type: string }) => h.event_type)).toEqual(['PROPOSED', 'DENIED']);

    step = await buyer(id, { action: 'escalate', note: 'Please decide.' });
    expect(step.body).toMatchObject({ status: 'WAITING_FOR_SELLER_RESPONSE', dispute_life_cycle_stage: 'CHARGEBACK' });
    expect(rels(step.body)).toEqual(['accept_claim', 'provide_evidence', 'provide_supporting_info', 'self']);
    await expectRefused(await seller(id, 'send-message', { message: 'hello?' }), 422, 'UNPROCESSABLE_ENTITY', 'INVALID_DISPUTE_STAGE');

    const evidence = await postForm(
      id,
      'provide-evidence',
      { evidences: [{ evidence_type: 'PROOF_OF_FULFILLMENT', evidence_info: { tracking_info: [{ carrier_name: 'FEDEX', tracking_number: '122533485' }] }, notes: 'Delivered.' }] },
      [{ name: 'receipt.pdf', type: 'application/pdf', bytes: PDF }],
    );
    expect(evidence.status, JSON.stringify(evidence.body)).toBe(200);
    expect(evidence.body).toMatchObject({ status: 'UNDER_REVIEW', dispute_life_cycle_stage: 'CHARGEBACK' });
    expect(rels(evidence.body)).toEqual(['accept_claim', 'adjudicate', 'provide_supporting_info', 'require_evidence', 'self']);
    const document = evidence.body.evidences[0].documents[0];
    expect(document.name).toBe('receipt.pdf');
    const download = await fetch(document.url, { headers: { authorization: `Bearer ${t.merchant.token}` } });
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('application/pdf');
    expect(Buffer.from(await download.arrayBuffer()).equals(PDF)).toBe(true);

    step = await seller(id, 'adjudicate', { adjudication_outcome: 'BUYER_FAVOR' });
    expect(step.body).toMatchObject({
      status: 'RESOLVED',
      dispute_outcome: { outcome_code: 'RESOLVED_BUYER_FAVOUR', amount_refunded: { value: '100.00' } },
    });
    expect(rels(step.body)).toEqual(['appeal', 'self']);
    // Lost to the dispute: REFUNDED with the reason (no REVERSED capture status); the dispute says REVERSED.
    expect(await captureOf(captureId)).toMatchObject({ status: 'REFUNDED', status_details: { reason: 'BUYER_COMPLAINT' } });
    expect((await show(id)).disputed_transactions[0].transaction_status).toBe('REVERSED');
    const afterDecision = await balance();
    expect(afterDecision).toBeLessThan(startBalance);
    const listed = await t.request('GET', `/v1/customer/disputes?disputed_transaction_id=${captureId}`);
    expect(listed.body.items[0].dispute_state).toBe('APPEALABLE');

    const appealed = await postForm(id, 'appeal', { evidences: [{ evidence_type: 'PROOF_OF_DELIVERY_SIGNATURE', notes: 'Signed by the buyer.' }] }, [
      { name: 'signature.pdf', type: 'application/pdf', bytes: PDF },
    ]);
    expect(appealed.status, JSON.stringify(appealed.body)).toBe(200);
    expect(appealed.body).toMatchObject({ status: 'UNDER_REVIEW', dispute_life_cycle_stage: 'PRE_ARBITRATION' });
    expect(appealed.body.dispute_outcome).toBeUndefined();

    step = await seller(id, 'adjudicate', { adjudication_outcome: 'SELLER_FAVOR' });
    expect(step.body).toMatchObject({ status: 'RESOLVED', dispute_outcome: { outcome_code: 'RESOLVED_SELLER_FAVOUR' } });
    expect(rels(step.body)).toEqual(['self']);
    expect(await balance()).toBe(startBalance);
    expect(step.body.money_movements.map((m: { type: string; amount: { value: string } }) => m.type)).toEqual(['DEBIT', 'CREDIT']);
    expect(step.body.money_movements[0].amount).toEqual(step.body.money_movements[1].amount);

    const types = (await outbox(t)).filter((row) => row.resource_id === id).map((row) => row.event_type);
    expect(types[0]).toBe('CUSTOMER.DISPUTE.CREATED');
    expect(types.filter((type) => type === 'CUSTOMER.DISPUTE.RESOLVED')).toHaveLength(2);
    expect(types.filter((type) => type === 'CUSTOMER.DISPUTE.UPDATED')).toHaveLength(7);
    const reversed = (await outbox(t)).filter((row) => row.resource_id === captureId && row.event_type === 'PAYMENT.CAPTURE.REVERSED');
    expect(reversed).toHaveLength(1);
  });
});

describe('money follows the outcome', () => {
  it('accept-claim REFUND refunds the disputed amount; the capture becomes PARTIALLY_REFUNDED', async () => {
    const { captureId, id } = await disputed('100.00', 'MERCHANDISE_OR_SERVICE_NOT_RECEIVED', { amount: { currency_code: 'USD', value: '40.00' } });
    const accepted = await seller(id, 'accept-claim', { note: 'Sorry.' });
    expect(accepted.body).toMatchObject({ status: 'RESOLVED', dispute_outcome: { outcome_code: 'RESOLVED_BUYER_FAVOUR', amount_refunded: { value: '40.00' } } });
    const capture = await captureOf(captureId);
    expect(capture.status).toBe('PARTIALLY_REFUNDED');
    const refunds = (await outbox(t)).filter((row) => row.event_type === 'PAYMENT.CAPTURE.REFUNDED' && row.envelope.resource.amount.value === '40.00');
    expect(refunds.length).toBeGreaterThan(0);
  });

  it('accept-claim PARTIAL_REFUND refunds exactly the amount given; then ordinary partial refunds work again', async () => {
    const { captureId, id } = await disputed('100.00');
    await expectRefused(await seller(id, 'accept-claim', { note: 'n', accept_claim_type: 'PARTIAL_REFUND' }), 400, 'VALIDATION_ERROR', 'MISSING_REFUND_AMOUNT');
    await expectRefused(
      await seller(id, 'accept-claim', { note: 'n', refund_amount: { currency_code: 'USD', value: '1.00' } }),
      400,
      'VALIDATION_ERROR',
      'AMOUNT_SHOULD_NOT_BE_PASSED',
    );
    await expectRefused(
      await seller(id, 'accept-claim', { note: 'n', accept_claim_type: 'REFUND_WITH_RETURN' }),
      422,
      'UNPROCESSABLE_ENTITY',
      'ACCEPT_CLAIM_TYPE_NOT_ALLOWED',
    );
    await expectRefused(
      await seller(id, 'accept-claim', { note: 'n', accept_claim_type: 'PARTIAL_REFUND', refund_amount: { currency_code: 'USD', value: '100.01' } }),
      422,
      'UNPROCESSABLE_ENTITY',
      'REFUND_AMOUNT_EXCEEDS_ALLOWED_REFUND',
    );
    const accepted = await seller(id, 'accept-claim', { note: 'n', accept_claim_type: 'PARTIAL_REFUND', refund_amount: { currency_code: 'USD', value: '15.25' } });
    expect(accepted.body.dispute_outcome).toEqual({ outcome_code: 'RESOLVED_BUYER_FAVOUR', amount_refunded: { currency_code: 'USD', value: '15.25' } });
    const capture = await captureOf(captureId);
    expect(capture.status).toBe('PARTIALLY_REFUNDED');
    const more = await refund(t, captureId, { amount: { currency_code: 'USD', value: '10.00' } });
    expect(more.status, more.text).toBe(200);
  });

  it('refuses partial refunds of a disputed capture with TRANSACTION_DISPUTED', async () => {
    const { captureId } = await disputed('50.00');
    const partial = await refund(t, captureId, { amount: { currency_code: 'USD', value: '10.00' } });
    await expectRefused(partial, 422, 'UNPROCESSABLE_ENTITY', 'TRANSACTION_DISPUTED');
  });

  it('an accepted offer refunds the offered amount (outcome ACCEPTED)', async () => {
    const { captureId, id } = await disputed('80.00');
    await seller(id, 'make-offer', { note: 'Half back?', offer_type: 'REFUND', offer_amount: { currency_code: 'USD', value: '40.00' } });
    const accepted = await buyer(id, { action: 'accept-offer', note: 'Fine.' });
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body).toMatchObject({ status: 'RESOLVED', dispute_outcome: { outcome_code: 'ACCEPTED', amount_refunded: { value: '40.00' } } });
    const capture = await captureOf(captureId);
    expect(capture.status).toBe('PARTIALLY_REFUNDED');
  });

  it('a return: accept-claim REFUND_WITH_RETURN, the buyer sends the item, the seller acknowledges, the refund follows', async () => {
    const { captureId, id, dispute } = await disputed('60.00', 'MERCHANDISE_OR_SERVICE_NOT_AS_DESCRIBED');
    expect(dispute.allowed_response_options.accept_claim.accept_claim_types).toContain('REFUND_WITH_RETURN');
    await expectRefused(await seller(id, 'accept-claim', { note: 'n', accept_claim_type: 'REFUND_WITH_RETURN' }), 400, 'VALIDATION_ERROR', 'MISSING_RETURN_SHIPPING_ADDRESS');
    await expectRefused(
      await seller(id, 'accept-claim', { note: 'n', accept_claim_type: 'REFUND_WITH_RETURN', return_shipping_address: { country_code: 'usa' } }),
      400,
      'VALIDATION_ERROR',
      'INVALID_RETURN_SHIPPING_ADDRESS_FORMAT',
    );
    let step = await seller(id, 'accept-claim', {
      note: 'Send it back.',
      accept_claim_type: 'REFUND_WITH_RETURN',
      return_shipping_address: { country_code: 'US', address_line_1: '1 Main St', admin_area_2: 'San Jose', postal_code: '95131' },
    });
    expect(step.body.status).toBe('WAITING_FOR_BUYER_RESPONSE');
    expect(rels(step.body)).toEqual(['self', 'send_message']);
    await expectRefused(await seller(id, 'acknowledge-return-item', { acknowledgement_type: 'ITEM_RECEIVED' }), 422, 'UNPROCESSABLE_ENTITY', 'NO_RETURN_PENDING');
    step = await buyer(id, { action: 'return-item', evidences: [{ evidence_type: 'PROOF_OF_RETURN', evidence_info: { tracking_info: [{ carrier_name: 'UPS', tracking_number: '1Z999' }] } }] });
    expect(step.body.status).toBe('WAITING_FOR_SELLER_RESPONSE');
    expect(rels(step.body)).toEqual(['acknowledge_return_item', 'self', 'send_message']);
    expect(step.body.allowed_response_options.acknowledge_return_item.acknowledgement_types).toContain('ITEM_RECEIVED');
    step = await seller(id, 'acknowledge-return-item', { note: 'Got it.', acknowledgement_type: 'ITEM_RECEIVED' });
    expect(step.body).toMatchObject({ status: 'RESOLVED', dispute_outcome: { outcome_code: 'RESOLVED_BUYER_FAVOUR', amount_refunded: { value: '60.00' } } });
    expect((await captureOf(captureId)).status).toBe('REFUNDED');
  });
});

describe('refused actions per stage and status', () => {
  const SELLER_ACTIONS: Record<string, unknown> = {
    'send-message': { message: 'hello' },
    'make-offer': { note: 'n', offer_type: 'REFUND', offer_amount: { currency_code: 'USD', value: '1.00' } },
    'accept-claim': { note: 'n' },
    'provide-evidence': { evidences: [{ evidence_type: 'OTHER', notes: 'n' }] },
    escalate: { note: 'n' },
    appeal: { evidences: [{ evidence_type: 'OTHER', notes: 'n' }] },
    'acknowledge-return-item': { acknowledgement_type: 'ITEM_RECEIVED' },
    adjudicate: { adjudication_outcome: 'BUYER_FAVOR' },
    'require-evidence': { action: 'SELLER_EVIDENCE' },
    'provide-supporting-info': { notes: 'n' },
  };

  /** Each fixture: how to reach it, the seller links expected there, and the issue of each refused action. */
  const FIXTURES: Array<{ name: string; reach: (id: string) => Promise<void>; allowed: string[]; refused: Record<string, string> }> = [
    {
      name: 'INQUIRY, waiting for the buyer',
      reach: async (id) => void (await seller(id, 'send-message', { message: 'm' })),
      allowed: ['send-message', 'accept-claim', 'escalate'],
      refused: {
        'make-offer': 'INVALID_DISPUTE_STATUS',
        'provide-evidence': 'INVALID_DISPUTE_STATUS',
        appeal: 'NOT_APPEALABLE',
        'acknowledge-return-item': 'NO_RETURN_PENDING',
        adjudicate: 'INVALID_DISPUTE_STATUS',
        'require-evidence': 'INVALID_DISPUTE_STATUS',
        'provide-supporting-info': 'INVALID_DISPUTE_STAGE',
      },
    },
    {
      name: 'CHARGEBACK, under review',
      reach: async (id) => {
        await buyer(id, { action: 'escalate', note: 'n' });
        await seller(id, 'provide-evidence', { evidences: [{ evidence_type: 'OTHER', notes: 'n' }] });
      },
      allowed: ['accept-claim', 'adjudicate', 'require-evidence', 'provide-supporting-info'],
      refused: {
        'send-message': 'INVALID_DISPUTE_STAGE',
        'make-offer': 'INVALID_DISPUTE_STAGE',
        'provide-evidence': 'INVALID_DISPUTE_STATUS',
        escalate: 'INVALID_DISPUTE_STAGE',
        appeal: 'NOT_APPEALABLE',
        'acknowledge-return-item': 'NO_RETURN_PENDING',
      },
    },
    {
      name: 'RESOLVED for the seller',
      reach: async (id) => {
        await buyer(id, { action: 'escalate', note: 'n' });
        await seller(id, 'provide-evidence', { evidences: [{ evidence_type: 'OTHER', notes: 'n' }] });
        await seller(id, 'adjudicate', { adjudication_outcome: 'SELLER_FAVOR' });
      },
      allowed: [],
      refused: {
        'send-message': 'DISPUTE_RESOLVED',
        'make-offer': 'DISPUTE_RESOLVED',
        'accept-claim': 'DISPUTE_RESOLVED',
        'provide-evidence': 'DISPUTE_RESOLVED',
        escalate: 'DISPUTE_RESOLVED',
        appeal: 'NOT_APPEALABLE',
        'acknowledge-return-item': 'DISPUTE_RESOLVED',
        adjudicate: 'INVALID_DISPUTE_STATUS',
        'require-evidence': 'INVALID_DISPUTE_STATUS',
        'provide-supporting-info': 'DISPUTE_RESOLVED',
      },
    },
  ];

  it.each(FIXTURES)('$name: links show exactly the allowed actions; the others are refused with their issue', async (fixture) => {
    const { id } = await disputed('10.00');
    await fixture.reach(id);
    const before = await show(id);
    const rel = (action: string) => action.replace(/-/g, '_');
    expect(rels(before)).toEqual(['self', ...fixture.allowed.map(rel)].sort());
    expect(Object.keys(fixture.refused).length + fixture.allowed.length).toBe(Object.keys(SELLER_ACTIONS).length);
    for (const [action, issue] of Object.entries(fixture.refused)) {
      const response = await seller(id, action, SELLER_ACTIONS[action]);
      expect([action, response.status, response.body.name, response.body.details?.[0]?.issue]).toEqual([action, 422, 'UNPROCESSABLE_ENTITY', issue]);
    }
    const after = await show(id);
    expect([after.status, after.update_time]).toEqual([before.status, before.update_time]);
  });

  it('buyer actions of the public API are refused to the merchant with FORBIDDEN', async () => {
    const { id } = await disputed('10.00');
    for (const action of ['accept-offer', 'deny-offer']) {
      const response = await t.request('POST', `/v1/customer/disputes/${id}/${action}`, { body: { note: 'n' } });
      await expectRefused(response, 403, 'FORBIDDEN', 'PERMISSION_DENIED');
    }
  });

  it('the buyer cannot answer an offer that does not exist', async () => {
    const { id } = await disputed('10.00');
    await expectRefused(await buyer(id, { action: 'accept-offer' }), 422, 'UNPROCESSABLE_ENTITY', 'NO_OPEN_OFFER');
  });
});

describe('deadlines on the account clock', () => {
  it('a seller who does not answer by seller_response_due_date loses: the capture is reversed', async () => {
    const merchant = await t.createMerchant();
    const { captureId } = await capturedPayment(t, '70.00', 'USD', merchant.token);
    const dispute = await openDispute(captureId, 'MERCHANDISE_OR_SERVICE_NOT_RECEIVED', {}, merchant.token);
    await t.advanceClock(10 * DAY - 60, merchant.token);
    let token = await t.tokenFor(merchant.client_id, merchant.client_secret);
    let current = (await t.request('GET', `/v1/customer/disputes/${dispute.dispute_id}`, { token })).body;
    expect(current.status).toBe('WAITING_FOR_SELLER_RESPONSE');
    await t.advanceClock(61, token);
    token = await t.tokenFor(merchant.client_id, merchant.client_secret);
    current = (await t.request('GET', `/v1/customer/disputes/${dispute.dispute_id}`, { token })).body;
    expect(current).toMatchObject({ status: 'RESOLVED', dispute_outcome: { outcome_code: 'RESOLVED_BUYER_FAVOUR', amount_refunded: { value: '70.00' } } });
    expect(rels(current)).toEqual(['self']);
    const capture = (await t.request('GET', `/v2/payments/captures/${captureId}`, { token, headers: REPRESENTATION })).body;
    expect(capture).toMatchObject({ status: 'REFUNDED', status_details: { reason: 'BUYER_COMPLAINT' } });
    const events = (await outbox(t, merchant.payer_id)).filter((row) => row.resource_id === dispute.dispute_id).map((row) => row.event_type);
    expect(events).toEqual(['CUSTOMER.DISPUTE.CREATED', 'CUSTOMER.DISPUTE.RESOLVED']);
  });

  it('a buyer who does not answer loses: resolved for the seller, no money moves', async () => {
    const merchant = await t.createMerchant();
    const { captureId } = await capturedPayment(t, '30.00', 'USD', merchant.token);
    const dispute = await openDispute(captureId, 'OTHER', {}, merchant.token);
    const answered = await t.request('POST', `/v1/customer/disputes/${dispute.dispute_id}/send-message`, { token: merchant.token, body: { message: 'Shipped.' } });
    expect(answered.status).toBe(200);
    await t.advanceClock(10 * DAY + 1, merchant.token);
    const token = await t.tokenFor(merchant.client_id, merchant.client_secret);
    const current = (await t.request('GET', `/v1/customer/disputes/${dispute.dispute_id}`, { token })).body;
    expect(current).toMatchObject({ status: 'RESOLVED', dispute_outcome: { outcome_code: 'RESOLVED_SELLER_FAVOUR' } });
    const capture = (await t.request('GET', `/v2/payments/captures/${captureId}`, { token, headers: REPRESENTATION })).body;
    expect(capture.status).toBe('COMPLETED');
  });
});

describe('deadlines are written by the job, not by reads', () => {
  it('a read past a deadline writes nothing; a change acts on the outcome; the job writes it', async () => {
    // Jobs run only when the test runs them; the clock is moved in the database, without running them.
    const q = await startTestServer({ memory: true, config: { jobIntervalMs: 3_600_000 } });
    try {
      const authId = await authorize(q, '40.00');
      const captureId = (await capture(q, authId)).body.id as string;
      const opened = await q.request('POST', '/_payctl/disputes', { body: { disputed_transaction_id: captureId, reason: 'MERCHANDISE_OR_SERVICE_NOT_RECEIVED' } });
      const id = opened.body.dispute_id as string;
      const accountId = q.merchant.payer_id;
      await q.server.db.updateTable('accounts').set({ clock_offset_ms: BigInt((10 * DAY + 60) * 1000) }).where('id', '=', accountId).execute();
      const token = await q.tokenFor(q.merchant.client_id, q.merchant.client_secret);
      const stored = () => q.server.db.selectFrom('disputes').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      const eventTypes = async () => (await outbox(q, accountId)).map((row) => row.event_type);
      const before = { dispute: await stored(), events: await eventTypes() };

      expect((await q.request('GET', `/v1/customer/disputes/${id}`, { token })).status).toBe(200);
      expect((await q.request('GET', `/v1/customer/disputes?disputed_transaction_id=${captureId}`, { token })).status).toBe(200);
      expect((await q.request('GET', `/_payctl/disputes/${id}`, { token })).status).toBe(200);
      expect(await stored()).toEqual(before.dispute);
      expect(await eventTypes()).toEqual(before.events);

      // A change settles the passed deadline first, in its own transaction: the seller answers too late.
      const late = await q.request('POST', `/v1/customer/disputes/${id}/accept-claim`, { token, body: { note: 'late' } });
      await expectRefused(late, 422, 'UNPROCESSABLE_ENTITY', 'DISPUTE_RESOLVED');
      // Refused, it rolled back: still nothing written.
      expect(await stored()).toEqual(before.dispute);

      // The job writes the outcome (positive control): resolved for the buyer, the capture reversed.
      await q.server.deps.scheduler.runAll();
      expect((await stored()).status).toBe('RESOLVED');
      expect((await eventTypes()).filter((type) => type === 'CUSTOMER.DISPUTE.RESOLVED')).toHaveLength(1);
      const shown = (await q.request('GET', `/v1/customer/disputes/${id}`, { token })).body;
      expect(shown).toMatchObject({ status: 'RESOLVED', dispute_outcome: { outcome_code: 'RESOLVED_BUYER_FAVOUR' } });
      const reversed = (await q.request('GET', `/v2/payments/captures/${captureId}`, { token })).body;
      expect(reversed).toMatchObject({ status: 'REFUNDED', status_details: { reason: 'BUYER_COMPLAINT' } });
    } finally {
      await q.close();
    }
  });
});

describe('the appeal window', () => {
  it('closes after 10 days on the account clock: no appeal link, dispute_state RESOLVED, an UPDATED event', async () => {
    const merchant = await t.createMerchant();
    const { captureId } = await capturedPayment(t, '20.00', 'USD', merchant.token);
    const { dispute_id: id } = await openDispute(captureId, 'MERCHANDISE_OR_SERVICE_NOT_RECEIVED', {}, merchant.token);
    const as = (token: string) => ({ token, headers: REPRESENTATION });
    await t.request('POST', `/v1/customer/disputes/${id}/escalate`, { ...as(merchant.token), body: { note: 'n' } });
    await t.request('POST', `/v1/customer/disputes/${id}/provide-evidence`, { ...as(merchant.token), body: { evidences: [{ evidence_type: 'OTHER', notes: 'n' }] } });
    const decided = await t.request('POST', `/v1/customer/disputes/${id}/adjudicate`, { ...as(merchant.token), body: { adjudication_outcome: 'BUYER_FAVOR' } });
    expect(rels(decided.body)).toEqual(['appeal', 'self']);
    await t.advanceClock(10 * DAY + 1, merchant.token);
    const token = await t.tokenFor(merchant.client_id, merchant.client_secret);
    const after = (await t.request('GET', `/v1/customer/disputes/${id}`, { token })).body;
    expect(rels(after)).toEqual(['self']);
    const listed = (await t.request('GET', `/v1/customer/disputes?disputed_transaction_id=${captureId}`, { token })).body;
    expect(listed.items[0].dispute_state).toBe('RESOLVED');
    const late = await t.request('POST', `/v1/customer/disputes/${id}/appeal`, { token, body: { evidences: [{ evidence_type: 'OTHER', notes: 'late' }] } });
    expect([late.status, late.body.details?.[0]?.issue]).toEqual([422, 'NOT_APPEALABLE']);
    const events = (await outbox(t, merchant.payer_id)).filter((row) => row.resource_id === id).map((row) => row.event_type);
    expect(events.at(-1)).toBe('CUSTOMER.DISPUTE.UPDATED');
    expect(events.filter((type) => type === 'CUSTOMER.DISPUTE.RESOLVED')).toHaveLength(1);
  });
});

describe('tenancy', () => {
  it("another merchant sees nothing of a dispute: not found everywhere, not in its list", async () => {
    const { id, captureId } = await disputed('10.00');
    const documented = await postForm(id, 'send-message', { message: 'with a file' }, [{ name: 'note.pdf', type: 'application/pdf', bytes: PDF }]);
    expect(documented.status).toBe(200);
    const url: string = documented.body.messages.at(-1).documents[0].url;
    const other = await t.createMerchant();
    const asOther = { token: other.token };
    const get = await t.request('GET', `/v1/customer/disputes/${id}`, asOther);
    await expectRefused(get, 404, 'RESOURCE_NOT_FOUND', 'INVALID_RESOURCE_ID');
    const act = await t.request('POST', `/v1/customer/disputes/${id}/accept-claim`, { ...asOther, body: { note: 'n' } });
    await expectRefused(act, 404, 'RESOURCE_NOT_FOUND', 'INVALID_RESOURCE_ID');
    const asBuyer = await t.request('POST', `/_payctl/disputes/${id}/buyer`, { ...asOther, body: { action: 'message', message: 'hi' } });
    await expectRefused(asBuyer, 404, 'RESOURCE_NOT_FOUND', 'INVALID_RESOURCE_ID');
    const download = await fetch(url, { headers: { authorization: `Bearer ${other.token}` } });
    expect(download.status).toBe(404);
    const list = await t.request('GET', `/v1/customer/disputes?disputed_transaction_id=${captureId}`, asOther);
    expect(list.body.items).toEqual([]);
    const open = await t.request('POST', '/_payctl/disputes', { ...asOther, body: { disputed_transaction_id: captureId, reason: 'OTHER' } });
    await expectRefused(open, 404, 'RESOURCE_NOT_FOUND', 'INVALID_RESOURCE_ID');
    expect((await show(id)).status).toBe('WAITING_FOR_BUYER_RESPONSE');
  });

  it('a platform without the merchant\'s consent: 403 AUTHORIZATION_ERROR in the dispute operations (spec 5.5)', async () => {
    const { id } = await disputed('10.00');
    const platform = await t.createMerchant();
    const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const assertion = `${b64url({ alg: 'none' })}.${b64url({ iss: platform.client_id, payer_id: t.merchant.payer_id })}.`;
    const asPlatform = { token: platform.token, headers: { 'service-auth-assertion': assertion } };
    const shown = await t.request('GET', `/v1/customer/disputes/${id}`, asPlatform);
    await expectRefused(shown, 403, 'AUTHORIZATION_ERROR', 'PERMISSION_DENIED');
    const acted = await t.request('POST', `/v1/customer/disputes/${id}/send-message`, { ...asPlatform, body: { message: 'hello' } });
    await expectRefused(acted, 403, 'AUTHORIZATION_ERROR', 'PERMISSION_DENIED');
    // Elsewhere the same check answers NOT_AUTHORIZED; with the consent the dispute is shown.
    const elsewhere = await t.request('GET', '/v2/invoicing/invoices', asPlatform);
    await expectRefused(elsewhere, 403, 'NOT_AUTHORIZED', 'PERMISSION_DENIED');
    const consent = await t.request('POST', '/_payctl/consents', { token: t.adminKey, body: { platform_client_id: platform.client_id, payer_id: t.merchant.payer_id } });
    expect(consent.status).toBeLessThan(300);
    expect((await t.request('GET', `/v1/customer/disputes/${id}`, asPlatform)).body.dispute_id).toBe(id);
  });
});

describe('request ids', () => {
  it('replays an action sent again with the same Service-Request-Id, and refuses the id for other content', async () => {
    const { id } = await disputed('10.00');
    const headers = { 'service-request-id': `msg-${id}` };
    const first = await t.request('POST', `/v1/customer/disputes/${id}/send-message`, { body: { message: 'once' }, headers });
    const second = await t.request('POST', `/v1/customer/disputes/${id}/send-message`, { body: { message: 'once' }, headers });
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.body).toEqual(first.body);
    expect((await show(id)).messages.filter((m: { content: string }) => m.content === 'once')).toHaveLength(1);
    const other = await t.request('POST', `/v1/customer/disputes/${id}/send-message`, { body: { message: 'twice' }, headers });
    await expectRefused(other, 422, 'UNPROCESSABLE_ENTITY', 'DUPLICATE_REQUEST_ID');
  });
});

describe('list', () => {
  it('filters by transaction and state, pages newest first with a keyset token, and checks its query', async () => {
    const merchant = await t.createMerchant();
    const ids: string[] = [];
    for (const value of ['1.00', '2.00', '3.00']) {
      const { captureId } = await capturedPayment(t, value, 'USD', merchant.token);
      ids.push((await openDispute(captureId, 'OTHER', {}, merchant.token)).dispute_id);
    }
    const as = { token: merchant.token };
    const first = await t.request('GET', '/v1/customer/disputes?page_size=2', as);
    expect(first.status).toBe(200);
    expect(first.body.items).toHaveLength(2);
    const next = first.body.links.find((link: { rel: string }) => link.rel === 'next');
    expect(next.href).toMatch(/next_page_token=/);
    const second = await t.request('GET', new URL(next.href).pathname + new URL(next.href).search, as);
    expect(second.body.items).toHaveLength(1);
    expect(second.body.links.find((link: { rel: string }) => link.rel === 'next')).toBeUndefined();
    const all = [...first.body.items, ...second.body.items].map((item: { dispute_id: string }) => item.dispute_id);
    expect([...all].sort()).toEqual([...ids].sort());
    const times = [...first.body.items, ...second.body.items].map((item: { create_time: string }) => item.create_time);
    expect([...times].sort().reverse()).toEqual(times);
    expect(first.body.items[0]).toMatchObject({ dispute_state: 'REQUIRED_ACTION', status: 'WAITING_FOR_SELLER_RESPONSE' });

    const required = await t.request('GET', '/v1/customer/disputes?dispute_state=REQUIRED_ACTION,RESOLVED', as);
    expect(required.body.items).toHaveLength(3);
    const resolved = await t.request('GET', '/v1/customer/disputes?dispute_state=RESOLVED', as);
    expect(resolved.body.items).toEqual([]);

    const checks: Array<[string, string]> = [
      ['page_size=0', 'INVALID_PAGE_SIZE'],
      ['page_size=51', 'INVALID_PAGE_SIZE'],
      ['start_time=yesterday', 'INVALID_START_TIME_FORMAT'],
      ['start_time=2999-01-01T00:00:00Z', 'DATE_CAN_NOT_BE_IN_FUTURE'],
      [`start_time=${new Date(Date.now() - 200 * DAY * 1000).toISOString()}`, 'INVALID_START_TIME_RANGE'],
      ['dispute_state=SOMETHING', 'INVALID_PARAMETER_VALUE'],
      ['next_page_token=bm90IGEgdG9rZW4=', 'INVALID_PARAMETER_VALUE'],
    ];
    for (const [query, issue] of checks) {
      const response = await t.request('GET', `/v1/customer/disputes?${query}`, as);
      expect([query, response.status, response.body.name, response.body.details?.[0]?.issue]).toEqual([query, 400, 'VALIDATION_ERROR', issue]);
    }
    const recent = await t.request('GET', `/v1/customer/disputes?start_time=${encodeURIComponent(new Date(Date.now() - DAY * 1000).toISOString())}`, as);
    expect(recent.body.items).toHaveLength(3);
    // A leap second is a well-formed RFC 3339 time here as everywhere (it names the next minute's start).
    const twoDaysAgo = new Date(Date.now() - 2 * DAY * 1000).toISOString().slice(0, 10);
    const leap = await t.request('GET', `/v1/customer/disputes?start_time=${twoDaysAgo}T23:59:60Z`, as);
    expect(leap.status, leap.text).toBe(200);
    expect(leap.body.items).toHaveLength(3);
    const notADay = await t.request('GET', '/v1/customer/disputes?start_time=2023-02-29T10:00:00Z', as);
    expect(notADay.body.details[0].issue).toBe('INVALID_START_TIME_FORMAT');
  });
});

describe('reset', () => {
  it('POST /_payctl/reset deletes the account\'s disputes and their documents', async () => {
    const merchant = await t.createMerchant();
    const { captureId } = await capturedPayment(t, '10.00', 'USD', merchant.token);
    const dispute = await openDispute(captureId, 'OTHER', {}, merchant.token);
    const reset = await t.request('POST', '/_payctl/reset', { token: merchant.token });
    expect(reset.status).toBe(200);
    const gone = await t.request('GET', `/v1/customer/disputes/${dispute.dispute_id}`, { token: merchant.token });
    expect(gone.status).toBe(404);
    const mine = await t.request('GET', '/v1/customer/disputes', {});
    expect(mine.status).toBe(200);
  });
});
