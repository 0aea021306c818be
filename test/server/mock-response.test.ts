// The mock response header is read by one parser with one set of rules, whichever domain answers.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ memory: true });
});
afterAll(async () => {
  await t.close();
});

const CALLS = [
  ['payments', '/v2/payments/captures/NOSUCHCAPTURE'],
  ['orders', '/v2/checkout/orders/NOSUCHORDER'],
  ['invoicing', '/v2/invoicing/invoices?page_size=1'],
  ['templates', '/v2/invoicing/templates'],
] as const;

const get = (path: string, header: string) => t.request('GET', path, { headers: { 'service-mock-response': header } });

describe.each(CALLS)('%s', (_domain, path) => {
  it.each(['nope', 'null', '{}', '{"mock_application_codes":7}', '{"mock_application_codes":"lower_case"}'])('refuses the header %s with 400', async (header) => {
    const answer = await get(path, header);
    expect(answer.status, answer.text).toBe(400);
    expect(answer.body.details[0]).toMatchObject({ issue: 'INVALID_PARAMETER_SYNTAX', field: 'Service-Mock-Response', location: 'header' });
  });

  it('answers an issue under its error name, any other issue as 422, an error name as that error', async () => {
    const denied = await get(path, '{"mock_application_codes":"PERMISSION_DENIED"}');
    expect([denied.status, denied.body.name, denied.body.details[0].issue]).toEqual([403, 'NOT_AUTHORIZED', 'PERMISSION_DENIED']);
    const other = await get(path, '{"mock_application_codes":"SOME_BUSINESS_RULE"}');
    expect([other.status, other.body.name, other.body.details[0].issue]).toEqual([422, 'UNPROCESSABLE_ENTITY', 'SOME_BUSINESS_RULE']);
    const conflict = await get(path, '{"mock_application_codes":"RESOURCE_CONFLICT"}');
    expect([conflict.status, conflict.body.name]).toEqual([409, 'RESOURCE_CONFLICT']);
    // A positive control: without the header the call runs.
    expect((await t.request('GET', path)).status).not.toBe(422);
  });
});
