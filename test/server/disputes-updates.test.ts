// Dispute PATCH (the seller's communication details) and provide-supporting-info over HTTP.

import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type Merchant, type TestServer } from '../helpers/server.js';
import { authorize, capture, outbox } from './payments-helpers.js';

let t: TestServer;
let other: Merchant;
const REPRESENTATION = { prefer: 'return=representation' };
const PDF = Buffer.from('%PDF-1.7\nsupporting\n%%EOF\n');

beforeAll(async () => {
  t = await startTestServer({ memory: true });
  other = await t.createMerchant('other-disputes@example.com');
});
afterAll(async () => {
  await t.close();
});

/** A dispute on a fresh capture; in a claim (stage CHARGEBACK) when `claim`. */
async function disputed(claim: boolean): Promise<string> {
  const captured = await capture(t, await authorize(t, '20.00'));
  const opened = await t.request('POST', '/_payctl/disputes', {
    body: { disputed_transaction_id: captured.body.id, reason: 'MERCHANDISE_OR_SERVICE_NOT_RECEIVED' },
  });
  expect(opened.status, opened.text).toBe(201);
  const id = opened.body.dispute_id as string;
  if (claim) expect((await t.request('POST', `/_payctl/disputes/${id}/buyer`, { body: { action: 'escalate', note: 'n' } })).status).toBe(200);
  return id;
}

const show = async (id: string) => (await t.request('GET', `/v1/customer/disputes/${id}`)).body;
const patch = (id: string, body: unknown, headers: Record<string, string> = {}, token?: string) =>
  t.request('PATCH', `/v1/customer/disputes/${id}`, { body, headers, ...(token ? { token } : {}) });
const eventsOf = async (id: string, from: number) => (await outbox(t)).slice(from).filter((row) => row.resource_id === id).map((row) => row.event_type);

describe('PATCH /v1/customer/disputes/{id}', () => {
  it('adds and then changes the communication details (204), shown on the dispute, each with an UPDATED event', async () => {
    const id = await disputed(false);
    const before = (await outbox(t)).length;
    const added = await patch(id, [{ op: 'add', path: '/communication_details', value: { email: 'seller@example.com', note: 'Write to us' } }]);
    expect(added.status, added.text).toBe(204);
    expect(added.text).toBe('');
    expect((await show(id)).communication_details).toMatchObject({ email: 'seller@example.com', note: 'Write to us' });
    const changed = await patch(id, [
      { op: 'replace', path: '/communication_details/email', value: 'returns@example.com' },
      { op: 'remove', path: '/communication_details/note' },
    ]);
    expect(changed.status, changed.text).toBe(204);
    const shown = (await show(id)).communication_details;
    expect(shown).toEqual({ email: 'returns@example.com', time_posted: expect.any(String) });
    expect(await eventsOf(id, before)).toEqual(['CUSTOMER.DISPUTE.UPDATED', 'CUSTOMER.DISPUTE.UPDATED']);
  });

  const refusals: Array<[string, unknown, number, string, string | undefined]> = [
    ['a path a seller cannot patch', [{ op: 'replace', path: '/status', value: 'RESOLVED' }], 422, 'NOT_PATCHABLE', '/0/path'],
    ['partner actions', [{ op: 'add', path: '/partner_actions', value: [] }], 403, 'PERMISSION_DENIED', '/0/path'],
    ['an operation the path does not allow', [{ op: 'remove', path: '/communication_details' }], 400, 'INVALID_PATCH_OPERATION', '/0/op'],
    ['replace of absent details', [{ op: 'replace', path: '/communication_details/email', value: 'a@b.c' }], 400, 'INVALID_PATCH_OPERATION', '/0/op'],
    ['no value', [{ op: 'add', path: '/communication_details' }], 422, 'PATCH_VALUE_REQUIRED', '/0/value'],
    ['an email of the wrong form', [{ op: 'add', path: '/communication_details', value: { email: 'nope' } }], 400, 'INVALID_PARAMETER_SYNTAX', '/0/value/email'],
    ['empty details', [{ op: 'add', path: '/communication_details', value: {} }], 400, 'MISSING_REQUIRED_PARAMETER', '/0/value'],
    ['a body that is not a patch', { email: 'a@b.c' }, 400, 'INVALID_PARAMETER_SYNTAX', '/'],
  ];
  it.each(refusals)('refuses %s, changing nothing', async (_what, body, status, issue, field) => {
    const id = await disputed(false);
    const before = await show(id);
    const result = await patch(id, body);
    expect(result.status, result.text).toBe(status);
    expect(result.body.details[0]).toMatchObject({ issue, ...(field ? { field } : {}) });
    expect((await show(id)).update_time).toBe(before.update_time);
  });

  it('refuses a resolved dispute', async () => {
    const id = await disputed(false);
    expect((await t.request('POST', `/v1/customer/disputes/${id}/accept-claim`, { body: { note: 'ok' } })).status).toBe(200);
    const result = await patch(id, [{ op: 'add', path: '/communication_details', value: { note: 'late' } }]);
    expect(result.status).toBe(422);
    expect(result.body.details[0].issue).toBe('DISPUTE_RESOLVED');
  });

  it("is another merchant's 404", async () => {
    const id = await disputed(false);
    const result = await patch(id, [{ op: 'add', path: '/communication_details', value: { note: 'x' } }], {}, other.token);
    expect(result.status).toBe(404);
    expect((await show(id)).communication_details).toBeUndefined();
  });

  it('replays the same request id with 204 and one event', async () => {
    const id = await disputed(false);
    const before = (await outbox(t)).length;
    const key = randomUUID();
    const body = [{ op: 'add', path: '/communication_details', value: { note: 'once' } }];
    expect((await patch(id, body, { 'service-request-id': key })).status).toBe(204);
    expect((await patch(id, body, { 'service-request-id': key })).status).toBe(204);
    expect(await eventsOf(id, before)).toEqual(['CUSTOMER.DISPUTE.UPDATED']);
  });
});

describe('POST /v1/customer/disputes/{id}/provide-supporting-info', () => {
  const provide = (id: string, body: unknown, headers: Record<string, string> = {}, token?: string) =>
    t.request('POST', `/v1/customer/disputes/${id}/provide-supporting-info`, { body, headers: { ...REPRESENTATION, ...headers }, ...(token ? { token } : {}) });

  it('records notes in a claim without moving it, shows a link for it, and emits UPDATED', async () => {
    const id = await disputed(true);
    const claim = await show(id);
    expect(claim.links.map((link: { rel: string }) => link.rel)).toContain('provide_supporting_info');
    const before = (await outbox(t)).length;
    const result = await provide(id, { notes: 'Tracking shows delivery on the 3rd.' });
    expect(result.status, result.text).toBe(200);
    expect(result.body.status).toBe(claim.status);
    expect(result.body.supporting_info).toEqual([
      { notes: 'Tracking shows delivery on the 3rd.', source: 'SUBMITTED_BY_SELLER', provided_time: expect.any(String), dispute_life_cycle_stage: 'CHARGEBACK' },
    ]);
    expect(await eventsOf(id, before)).toEqual(['CUSTOMER.DISPUTE.UPDATED']);
  });

  it('answers the subsequent_action links by default', async () => {
    const id = await disputed(true);
    const result = await t.request('POST', `/v1/customer/disputes/${id}/provide-supporting-info`, { body: { notes: 'n' } });
    expect(result.status).toBe(200);
    expect(result.body).toEqual({ links: [{ href: `${t.url}/v1/customer/disputes/${id}`, rel: 'self', method: 'GET' }] });
  });

  it('takes a document in the "supporting document" part, downloadable from the dispute', async () => {
    const id = await disputed(true);
    const form = new FormData();
    form.append('input', JSON.stringify({ notes: 'Signed delivery slip' }));
    form.append('supporting document', new Blob([PDF], { type: 'application/pdf' }), 'slip.pdf');
    const response = await fetch(`${t.url}/v1/customer/disputes/${id}/provide-supporting-info`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.merchant.token}`, ...REPRESENTATION },
      body: form,
    });
    const body = (await response.json()) as any;
    expect(response.status, JSON.stringify(body)).toBe(200);
    const info = body.supporting_info[0];
    expect(info.documents).toEqual([{ name: 'slip.pdf', url: expect.stringContaining(`/v1/customer/disputes/${id}/documents/`) }]);
    const download = await fetch(info.documents[0].url, { headers: { authorization: `Bearer ${t.merchant.token}` } });
    expect(Buffer.from(await download.arrayBuffer()).equals(PDF)).toBe(true);
  });

  it('refuses an inquiry (no link there) and a request with neither notes nor documents', async () => {
    const inquiry = await disputed(false);
    expect((await show(inquiry)).links.map((link: { rel: string }) => link.rel)).not.toContain('provide_supporting_info');
    const refused = await provide(inquiry, { notes: 'n' });
    expect(refused.status).toBe(422);
    expect(refused.body.details[0].issue).toBe('INVALID_DISPUTE_STAGE');
    const claim = await disputed(true);
    const empty = await provide(claim, {});
    expect(empty.status).toBe(400);
    expect(empty.body.details[0]).toMatchObject({ issue: 'MISSING_REQUIRED_PARAMETER', field: '/notes' });
    const long = await provide(claim, { notes: 'x'.repeat(2001) });
    expect(long.status).toBe(400);
    expect(long.body.details[0].field).toBe('/notes');
    expect((await show(claim)).supporting_info).toBeUndefined();
  });

  it("is another merchant's 404, and a replay answers the same with one record", async () => {
    const id = await disputed(true);
    expect((await provide(id, { notes: 'n' }, {}, other.token)).status).toBe(404);
    const key = randomUUID();
    const first = await provide(id, { notes: 'once' }, { 'service-request-id': key });
    const again = await provide(id, { notes: 'once' }, { 'service-request-id': key });
    expect(first.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect((await show(id)).supporting_info).toHaveLength(1);
  });
});
