// A query parameter given twice is refused in each API's own error shape, naming the parameter
// (http/validation.ts singleQueryValue, used by the disputes list and the reporting queries).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
});

afterAll(async () => {
  await t?.close();
});

describe('a query parameter given twice', () => {
  it('disputes list: VALIDATION_ERROR on that parameter', async () => {
    const answer = await t.request<{ name: string; details: unknown[] }>('GET', '/v1/customer/disputes?page_size=5&page_size=6');
    expect(answer.status).toBe(400);
    expect(answer.body.name).toBe('VALIDATION_ERROR');
    expect(answer.body.details).toEqual([
      { issue: 'INVALID_PARAMETER_SYNTAX', description: 'Give page_size once.', field: 'page_size', value: '["5","6"]', location: 'query' },
    ]);
  });

  it('reporting balances: INVALID_REQUEST on that parameter', async () => {
    const answer = await t.request<{ name: string; details: unknown[] }>('GET', '/v1/reporting/balances?currency_code=USD&currency_code=EUR');
    expect(answer.status).toBe(400);
    expect(answer.body.name).toBe('INVALID_REQUEST');
    expect(answer.body.details).toEqual([
      { issue: 'INVALID_PARAMETER_SYNTAX', description: 'Give currency_code once.', field: 'currency_code', value: '["USD","EUR"]', location: 'query' },
    ]);
  });

  it('a parameter given once is taken (positive control)', async () => {
    expect((await t.request('GET', '/v1/customer/disputes?page_size=5')).status).toBe(200);
    expect((await t.request('GET', '/v1/reporting/balances?currency_code=USD')).status).toBe(200);
  });
});
