// Sandbox error simulation for disputes: all 103 ERRDIS values, from a table written out here (from
// the spec's §7.1 and API-NOTES §9.6), independent of the server's own generated table.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

type Row = [value: string, method: 'GET' | 'POST', path: string, name: string, issue: string | null, status: number];

const ERRDIS: readonly Row[] = [
  ['ERRDIS015', 'GET', '/v1/customer/disputes/ERRDIS015', 'FORBIDDEN', null, 403],
  ['ERRDIS016', 'GET', '/v1/customer/disputes/ERRDIS016', 'INVALID_RESOURCE_ID', null, 404],
  ['ERRDIS017', 'GET', '/v1/customer/disputes/ERRDIS017', 'NOT_ACCEPTABLE', null, 406],
  ['ERRDIS018', 'GET', '/v1/customer/disputes/ERRDIS018', 'UNSUPPORTED_MEDIA_TYPE', null, 415],
  ['ERRDIS019', 'GET', '/v1/customer/disputes/ERRDIS019', 'RATE_LIMIT_REACHED', null, 429],
  ['ERRDIS020', 'GET', '/v1/customer/disputes/ERRDIS020', 'SERVICE_UNAVAILABLE', null, 503],
  ['ERRDIS021', 'GET', '/v1/customer/disputes/ERRDIS021', 'INTERNAL_SERVICE_ERROR', null, 500],
  ['ERRDIS022', 'GET', '/v1/customer/disputes/ERRDIS022', 'AUTHORIZATION_ERROR', null, 403],
  ['ERRDIS023', 'GET', '/v1/customer/disputes?disputed_transaction_id=ERRDIS023', 'FORBIDDEN', null, 403],
  ['ERRDIS024', 'GET', '/v1/customer/disputes?disputed_transaction_id=ERRDIS024', 'INVALID_RESOURCE_ID', null, 404],
  ['ERRDIS025', 'GET', '/v1/customer/disputes?disputed_transaction_id=ERRDIS025', 'NOT_ACCEPTABLE', null, 406],
  ['ERRDIS026', 'GET', '/v1/customer/disputes?disputed_transaction_id=ERRDIS026', 'UNSUPPORTED_MEDIA_TYPE', null, 415],
  ['ERRDIS027', 'GET', '/v1/customer/disputes?disputed_transaction_id=ERRDIS027', 'RATE_LIMIT_REACHED', null, 429],
  ['ERRDIS028', 'GET', '/v1/customer/disputes?disputed_transaction_id=ERRDIS028', 'SERVICE_UNAVAILABLE', null, 503],
  ['ERRDIS029', 'GET', '/v1/customer/disputes?disputed_transaction_id=ERRDIS029', 'INTERNAL_SERVICE_ERROR', null, 500],
  ['ERRDIS030', 'GET', '/v1/customer/disputes?disputed_transaction_id=ERRDIS030', 'AUTHORIZATION_ERROR', null, 403],
  ['ERRDIS031', 'GET', '/v1/customer/disputes?disputed_transaction_id=ERRDIS031', 'VALIDATION_ERROR', 'DATE_CAN_NOT_BE_IN_FUTURE', 400],
  ['ERRDIS032', 'GET', '/v1/customer/disputes?disputed_transaction_id=ERRDIS032', 'VALIDATION_ERROR', 'INVALID_PAGE_SIZE', 400],
  ['ERRDIS033', 'GET', '/v1/customer/disputes?disputed_transaction_id=ERRDIS033', 'VALIDATION_ERROR', 'INVALID_START_TIME_FORMAT', 400],
  ['ERRDIS034', 'GET', '/v1/customer/disputes?disputed_transaction_id=ERRDIS034', 'VALIDATION_ERROR', 'INVALID_START_TIME_RANGE', 400],
  ['ERRDIS035', 'POST', '/v1/customer/disputes/ERRDIS035/provide-evidence', 'FORBIDDEN', null, 403],
  ['ERRDIS036', 'POST', '/v1/customer/disputes/ERRDIS036/provide-evidence', 'INVALID_RESOURCE_ID', null, 404],
  ['ERRDIS037', 'POST', '/v1/customer/disputes/ERRDIS037/provide-evidence', 'NOT_ACCEPTABLE', null, 406],
  ['ERRDIS038', 'POST', '/v1/customer/disputes/ERRDIS038/provide-evidence', 'UNSUPPORTED_MEDIA_TYPE', null, 415],
  ['ERRDIS039', 'POST', '/v1/customer/disputes/ERRDIS039/provide-evidence', 'RATE_LIMIT_REACHED', null, 429],
  ['ERRDIS040', 'POST', '/v1/customer/disputes/ERRDIS040/provide-evidence', 'SERVICE_UNAVAILABLE', null, 503],
  ['ERRDIS041', 'POST', '/v1/customer/disputes/ERRDIS041/provide-evidence', 'INTERNAL_SERVICE_ERROR', null, 500],
  ['ERRDIS042', 'POST', '/v1/customer/disputes/ERRDIS042/provide-evidence', 'AUTHORIZATION_ERROR', null, 403],
  ['ERRDIS043', 'POST', '/v1/customer/disputes/ERRDIS043/provide-evidence', 'UNPROCESSABLE_ENTITY', null, 422],
  ['ERRDIS044', 'POST', '/v1/customer/disputes/ERRDIS044/provide-evidence', 'VALIDATION_ERROR', 'INVALID_EVIDENCE_FILE', 400],
  ['ERRDIS045', 'POST', '/v1/customer/disputes/ERRDIS045/provide-evidence', 'VALIDATION_ERROR', 'INVALID_EVIDENCE_TYPE_PROOF_OF_FULFILLMENT', 400],
  ['ERRDIS046', 'POST', '/v1/customer/disputes/ERRDIS046/provide-evidence', 'VALIDATION_ERROR', 'ITEM_ID_IS_MANDATORY_FOR_MULTIPLE_EVIDENCES', 400],
  ['ERRDIS047', 'POST', '/v1/customer/disputes/ERRDIS047/provide-evidence', 'VALIDATION_ERROR', 'MISSING_EVIDENCE_INFO', 400],
  ['ERRDIS048', 'POST', '/v1/customer/disputes/ERRDIS048/provide-evidence', 'VALIDATION_ERROR', 'MISSING_EVIDENCE_TYPE', 400],
  ['ERRDIS049', 'POST', '/v1/customer/disputes/ERRDIS049/provide-evidence', 'VALIDATION_ERROR', 'MISSING_REFUND_ID', 400],
  ['ERRDIS050', 'POST', '/v1/customer/disputes/ERRDIS050/provide-evidence', 'VALIDATION_ERROR', 'MISSING_TRACKING_INFO', 400],
  ['ERRDIS051', 'POST', '/v1/customer/disputes/ERRDIS051/accept-claim', 'FORBIDDEN', null, 403],
  ['ERRDIS052', 'POST', '/v1/customer/disputes/ERRDIS052/accept-claim', 'INVALID_RESOURCE_ID', null, 404],
  ['ERRDIS053', 'POST', '/v1/customer/disputes/ERRDIS053/accept-claim', 'NOT_ACCEPTABLE', null, 406],
  ['ERRDIS054', 'POST', '/v1/customer/disputes/ERRDIS054/accept-claim', 'UNSUPPORTED_MEDIA_TYPE', null, 415],
  ['ERRDIS055', 'POST', '/v1/customer/disputes/ERRDIS055/accept-claim', 'RATE_LIMIT_REACHED', null, 429],
  ['ERRDIS056', 'POST', '/v1/customer/disputes/ERRDIS056/accept-claim', 'SERVICE_UNAVAILABLE', null, 503],
  ['ERRDIS057', 'POST', '/v1/customer/disputes/ERRDIS057/accept-claim', 'INTERNAL_SERVICE_ERROR', null, 500],
  ['ERRDIS058', 'POST', '/v1/customer/disputes/ERRDIS058/accept-claim', 'AUTHORIZATION_ERROR', null, 403],
  ['ERRDIS059', 'POST', '/v1/customer/disputes/ERRDIS059/accept-claim', 'UNPROCESSABLE_ENTITY', null, 422],
  ['ERRDIS060', 'POST', '/v1/customer/disputes/ERRDIS060/accept-claim', 'VALIDATION_ERROR', 'AMOUNT_SHOULD_NOT_BE_PASSED', 400],
  ['ERRDIS061', 'POST', '/v1/customer/disputes/ERRDIS061/accept-claim', 'VALIDATION_ERROR', 'INSUFFICIENT_FUNDS', 400],
  ['ERRDIS062', 'POST', '/v1/customer/disputes/ERRDIS062/accept-claim', 'VALIDATION_ERROR', 'INTANGIBLE_ITEM_CANNOT_BE_RETURNED', 400],
  ['ERRDIS063', 'POST', '/v1/customer/disputes/ERRDIS063/accept-claim', 'VALIDATION_ERROR', 'INVALID_RETURN_SHIPPING_ADDRESS_FORMAT', 400],
  ['ERRDIS064', 'POST', '/v1/customer/disputes/ERRDIS064/accept-claim', 'VALIDATION_ERROR', 'MISSING_RETURN_SHIPPING_ADDRESS', 400],
  ['ERRDIS065', 'POST', '/v1/customer/disputes/ERRDIS065/accept-claim', 'UNPROCESSABLE_ENTITY', null, 422],
  ['ERRDIS066', 'POST', '/v1/customer/disputes/ERRDIS066/appeal', 'FORBIDDEN', null, 403],
  ['ERRDIS067', 'POST', '/v1/customer/disputes/ERRDIS067/appeal', 'INVALID_RESOURCE_ID', null, 404],
  ['ERRDIS068', 'POST', '/v1/customer/disputes/ERRDIS068/appeal', 'NOT_ACCEPTABLE', null, 406],
  ['ERRDIS069', 'POST', '/v1/customer/disputes/ERRDIS069/appeal', 'UNSUPPORTED_MEDIA_TYPE', null, 415],
  ['ERRDIS070', 'POST', '/v1/customer/disputes/ERRDIS070/appeal', 'RATE_LIMIT_REACHED', null, 429],
  ['ERRDIS071', 'POST', '/v1/customer/disputes/ERRDIS071/appeal', 'SERVICE_UNAVAILABLE', null, 503],
  ['ERRDIS072', 'POST', '/v1/customer/disputes/ERRDIS072/appeal', 'INTERNAL_SERVICE_ERROR', null, 500],
  ['ERRDIS073', 'POST', '/v1/customer/disputes/ERRDIS073/appeal', 'AUTHORIZATION_ERROR', null, 403],
  ['ERRDIS074', 'POST', '/v1/customer/disputes/ERRDIS074/appeal', 'UNPROCESSABLE_ENTITY', null, 422],
  ['ERRDIS075', 'POST', '/v1/customer/disputes/ERRDIS075/appeal', 'VALIDATION_ERROR', 'INVALID_EVIDENCE_FILE', 400],
  ['ERRDIS076', 'POST', '/v1/customer/disputes/ERRDIS076/appeal', 'VALIDATION_ERROR', 'INVALID_EVIDENCE_TYPE_PROOF_OF_FULFILLMENT', 400],
  ['ERRDIS077', 'POST', '/v1/customer/disputes/ERRDIS077/appeal', 'VALIDATION_ERROR', 'ITEM_ID_IS_MANDATORY_FOR_MULTIPLE_EVIDENCES', 400],
  ['ERRDIS078', 'POST', '/v1/customer/disputes/ERRDIS078/appeal', 'VALIDATION_ERROR', 'MISSING_EVIDENCE_INFO', 400],
  ['ERRDIS079', 'POST', '/v1/customer/disputes/ERRDIS079/appeal', 'VALIDATION_ERROR', 'MISSING_EVIDENCE_TYPE', 400],
  ['ERRDIS080', 'POST', '/v1/customer/disputes/ERRDIS080/appeal', 'VALIDATION_ERROR', 'MISSING_REFUND_ID', 400],
  ['ERRDIS081', 'POST', '/v1/customer/disputes/ERRDIS081/appeal', 'VALIDATION_ERROR', 'MISSING_TRACKING_INFO', 400],
  ['ERRDIS082', 'POST', '/v1/customer/disputes/ERRDIS082/escalate', 'FORBIDDEN', null, 403],
  ['ERRDIS083', 'POST', '/v1/customer/disputes/ERRDIS083/escalate', 'INVALID_RESOURCE_ID', null, 404],
  ['ERRDIS084', 'POST', '/v1/customer/disputes/ERRDIS084/escalate', 'NOT_ACCEPTABLE', null, 406],
  ['ERRDIS085', 'POST', '/v1/customer/disputes/ERRDIS085/escalate', 'UNSUPPORTED_MEDIA_TYPE', null, 415],
  ['ERRDIS086', 'POST', '/v1/customer/disputes/ERRDIS086/escalate', 'RATE_LIMIT_REACHED', null, 429],
  ['ERRDIS087', 'POST', '/v1/customer/disputes/ERRDIS087/escalate', 'SERVICE_UNAVAILABLE', null, 503],
  ['ERRDIS088', 'POST', '/v1/customer/disputes/ERRDIS088/escalate', 'INTERNAL_SERVICE_ERROR', null, 500],
  ['ERRDIS089', 'POST', '/v1/customer/disputes/ERRDIS089/escalate', 'AUTHORIZATION_ERROR', null, 403],
  ['ERRDIS090', 'POST', '/v1/customer/disputes/ERRDIS090/escalate', 'UNPROCESSABLE_ENTITY', null, 422],
  ['ERRDIS091', 'POST', '/v1/customer/disputes/ERRDIS091/send-message', 'FORBIDDEN', null, 403],
  ['ERRDIS092', 'POST', '/v1/customer/disputes/ERRDIS092/send-message', 'INVALID_RESOURCE_ID', null, 404],
  ['ERRDIS093', 'POST', '/v1/customer/disputes/ERRDIS093/send-message', 'NOT_ACCEPTABLE', null, 406],
  ['ERRDIS094', 'POST', '/v1/customer/disputes/ERRDIS094/send-message', 'UNSUPPORTED_MEDIA_TYPE', null, 415],
  ['ERRDIS095', 'POST', '/v1/customer/disputes/ERRDIS095/send-message', 'RATE_LIMIT_REACHED', null, 429],
  ['ERRDIS096', 'POST', '/v1/customer/disputes/ERRDIS096/send-message', 'SERVICE_UNAVAILABLE', null, 503],
  ['ERRDIS097', 'POST', '/v1/customer/disputes/ERRDIS097/send-message', 'INTERNAL_SERVICE_ERROR', null, 500],
  ['ERRDIS098', 'POST', '/v1/customer/disputes/ERRDIS098/send-message', 'AUTHORIZATION_ERROR', null, 403],
  ['ERRDIS099', 'POST', '/v1/customer/disputes/ERRDIS099/send-message', 'UNPROCESSABLE_ENTITY', null, 422],
  ['ERRDIS100', 'POST', '/v1/customer/disputes/ERRDIS100/make-offer', 'FORBIDDEN', null, 403],
  ['ERRDIS101', 'POST', '/v1/customer/disputes/ERRDIS101/make-offer', 'INVALID_RESOURCE_ID', null, 404],
  ['ERRDIS102', 'POST', '/v1/customer/disputes/ERRDIS102/make-offer', 'NOT_ACCEPTABLE', null, 406],
  ['ERRDIS103', 'POST', '/v1/customer/disputes/ERRDIS103/make-offer', 'UNSUPPORTED_MEDIA_TYPE', null, 415],
  ['ERRDIS104', 'POST', '/v1/customer/disputes/ERRDIS104/make-offer', 'RATE_LIMIT_REACHED', null, 429],
  ['ERRDIS105', 'POST', '/v1/customer/disputes/ERRDIS105/make-offer', 'SERVICE_UNAVAILABLE', null, 503],
  ['ERRDIS106', 'POST', '/v1/customer/disputes/ERRDIS106/make-offer', 'INTERNAL_SERVICE_ERROR', null, 500],
  ['ERRDIS107', 'POST', '/v1/customer/disputes/ERRDIS107/make-offer', 'AUTHORIZATION_ERROR', null, 403],
  ['ERRDIS108', 'POST', '/v1/customer/disputes/ERRDIS108/make-offer', 'UNPROCESSABLE_ENTITY', null, 422],
  ['ERRDIS109', 'POST', '/v1/customer/disputes/ERRDIS109/acknowledge-return-item', 'FORBIDDEN', null, 403],
  ['ERRDIS110', 'POST', '/v1/customer/disputes/ERRDIS110/acknowledge-return-item', 'INVALID_RESOURCE_ID', null, 404],
  ['ERRDIS111', 'POST', '/v1/customer/disputes/ERRDIS111/acknowledge-return-item', 'NOT_ACCEPTABLE', null, 406],
  ['ERRDIS112', 'POST', '/v1/customer/disputes/ERRDIS112/acknowledge-return-item', 'UNSUPPORTED_MEDIA_TYPE', null, 415],
  ['ERRDIS113', 'POST', '/v1/customer/disputes/ERRDIS113/acknowledge-return-item', 'RATE_LIMIT_REACHED', null, 429],
  ['ERRDIS114', 'POST', '/v1/customer/disputes/ERRDIS114/acknowledge-return-item', 'SERVICE_UNAVAILABLE', null, 503],
  ['ERRDIS115', 'POST', '/v1/customer/disputes/ERRDIS115/acknowledge-return-item', 'INTERNAL_SERVICE_ERROR', null, 500],
  ['ERRDIS116', 'POST', '/v1/customer/disputes/ERRDIS116/acknowledge-return-item', 'AUTHORIZATION_ERROR', null, 403],
  ['ERRDIS117', 'POST', '/v1/customer/disputes/ERRDIS117/acknowledge-return-item', 'UNPROCESSABLE_ENTITY', null, 422],
];

/** The fixed message of each error name (the catalogue's text, repeated so a changed text is noticed). */
const MESSAGES: Record<string, string> = {
  FORBIDDEN: 'No permission for the requested operation.',
  INVALID_RESOURCE_ID: 'Requested resource ID was not found.',
  NOT_ACCEPTABLE: 'The server does not implement the media type that would be acceptable to the client.',
  UNSUPPORTED_MEDIA_TYPE: "The server does not support the request payload's media type.",
  RATE_LIMIT_REACHED: 'Too many requests. Blocked due to rate limiting.',
  SERVICE_UNAVAILABLE: 'Service Unavailable.',
  INTERNAL_SERVICE_ERROR: 'Internal service error.',
  AUTHORIZATION_ERROR: 'Authorization error occurred.',
  VALIDATION_ERROR: 'Invalid request - see details.',
  UNPROCESSABLE_ENTITY: 'The requested action could not be performed, semantically incorrect, or failed business validation.',
};

let server: TestServer;

async function counts() {
  const db = server.server.db;
  const count = async (table: 'events' | 'idempotency_keys' | 'disputes' | 'dispute_documents') =>
    Number((await db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  return {
    events: await count('events'),
    keys: await count('idempotency_keys'),
    disputes: await count('disputes'),
    documents: await count('dispute_documents'),
  };
}

function send(row: Row, options: { requestId?: string; raw?: string; contentType?: string } = {}) {
  const [, method, path] = row;
  const headers: Record<string, string> = {};
  if (options.requestId) headers['service-request-id'] = options.requestId;
  if (method === 'GET') return server.request(method, path, { headers });
  if (options.raw !== undefined) {
    return server.request(method, path, { raw: options.raw, headers: { ...headers, 'content-type': options.contentType ?? 'application/json' } });
  }
  return server.request(method, path, { body: {}, headers });
}

beforeAll(async () => {
  server = await startTestServer({ memory: true });
});
afterAll(async () => {
  await server.close();
});

describe('ERRDIS simulation', () => {
  it('the hand-written table has 103 contiguous values, ERRDIS015 to ERRDIS117', () => {
    expect(ERRDIS).toHaveLength(103);
    ERRDIS.forEach(([value], index) => expect(value).toBe(`ERRDIS${String(15 + index).padStart(3, '0')}`));
  });

  it.each(ERRDIS)('%s on %s %s answers %s / %s with HTTP %i, every time', async (...row) => {
    const [value, , , name, issue, status] = row;
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const response = await send(row);
      expect(response.status, `${value} attempt ${attempt}`).toBe(status);
      expect(response.body.name).toBe(name);
      expect(response.body.message).toBe(MESSAGES[name]);
      expect(typeof response.body.debug_id).toBe('string');
      if (issue === null) expect(response.body.details).toBeUndefined();
      else expect(response.body.details?.map((detail: { issue: string }) => detail.issue)).toEqual([issue]);
    }
  });

  it('changes nothing: no dispute, no event, no stored request id', async () => {
    const before = await counts();
    for (const row of ERRDIS) await send(row, { requestId: `sim-${row[0]}` });
    expect(await counts()).toEqual(before);
    expect(before.disputes).toBe(0);
  });

  it('answers before the body, the content type or the query is looked at', async () => {
    const acceptClaim = ERRDIS.find(([value]) => value === 'ERRDIS059');
    const malformed = await send(acceptClaim!, { raw: '{not json' });
    expect([malformed.status, malformed.body.name]).toEqual([422, 'UNPROCESSABLE_ENTITY']);
    const wrongType = await send(acceptClaim!, { raw: 'hello', contentType: 'text/csv' });
    expect([wrongType.status, wrongType.body.name]).toEqual([422, 'UNPROCESSABLE_ENTITY']);
    const list = await server.request('GET', '/v1/customer/disputes?disputed_transaction_id=ERRDIS023&page_size=999&start_time=bad');
    expect([list.status, list.body.name]).toEqual([403, 'FORBIDDEN']);
  });

  it('still needs a valid access token', async () => {
    const response = await server.request('GET', '/v1/customer/disputes/ERRDIS015', { token: null });
    expect([response.status, response.body.name]).toEqual([401, 'AUTHENTICATION_FAILURE']);
  });

  it('is case-sensitive: a lower-case value is an unknown dispute', async () => {
    const show = await server.request('GET', '/v1/customer/disputes/errdis015');
    expect([show.status, show.body.name, show.body.details[0].issue]).toEqual([404, 'RESOURCE_NOT_FOUND', 'INVALID_RESOURCE_ID']);
    const list = await server.request('GET', '/v1/customer/disputes?disputed_transaction_id=errdis023');
    expect(list.status).toBe(200);
    expect(list.body.items).toEqual([]);
  });

  it('treats a value of another operation, or an unassigned one, as an unknown dispute', async () => {
    const cases: Array<[string, string, unknown]> = [
      ['GET', '/v1/customer/disputes/ERRDIS035', undefined],
      ['GET', '/v1/customer/disputes/ERRDIS014', undefined],
      ['GET', '/v1/customer/disputes/ERRDIS118', undefined],
      ['POST', '/v1/customer/disputes/ERRDIS015/send-message', { message: 'hello' }],
      ['POST', '/v1/customer/disputes/ERRDIS091/make-offer', { note: 'n', offer_type: 'REFUND', offer_amount: { currency_code: 'USD', value: '1.00' } }],
      ['POST', '/v1/customer/disputes/ERRDIS109/escalate', { note: 'n' }],
      ['POST', '/v1/customer/disputes/ERRDIS035/adjudicate', { adjudication_outcome: 'BUYER_FAVOR' }],
    ];
    for (const [method, path, body] of cases) {
      const response = await server.request(method, path, body === undefined ? {} : { body });
      expect([path, response.status, response.body.name]).toEqual([path, 404, 'RESOURCE_NOT_FOUND']);
    }
    const list = await server.request('GET', '/v1/customer/disputes?disputed_transaction_id=ERRDIS015');
    expect([list.status, list.body.items]).toEqual([200, []]);
  });
});
