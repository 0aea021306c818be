// The HTTP layer over real HTTP: the error shape, unknown routes and methods, HEAD, no-store,
// malformed and oversized bodies, validation of strings and headers, the admin key.

import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

describe('error shape and validation', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ memory: true });
  });
  afterAll(() => t.close());

  function expectErrorShape(body: Record<string, unknown>) {
    expect(typeof body.name).toBe('string');
    expect(typeof body.message).toBe('string');
    expect(body.debug_id).toMatch(/^[0-9a-f]{14}$/);
    expect(Array.isArray(body.links)).toBe(true);
  }

  it('answers an unknown route with 404 RESOURCE_NOT_FOUND', async () => {
    const result = await t.request('GET', '/v2/nothing/here');
    expect(result.status).toBe(404);
    expect(result.body.name).toBe('RESOURCE_NOT_FOUND');
    expectErrorShape(result.body);
  });

  it('marks every answer as not to be cached: success, refusal, unknown route, wrong method', async () => {
    const answers = [
      await t.request('GET', '/_payctl/clock'),
      await t.request('GET', '/_payctl/clock', { token: null }),
      await t.request('GET', '/_payctl/clock', { token: 'A21AAnot-a-token' }),
      await t.request('GET', '/v2/nothing/here'),
      await t.request('DELETE', '/_payctl/clock'),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 401, 401, 404, 405]);
    for (const answer of answers) expect(answer.headers.get('cache-control')).toBe('no-store');
    // Refused by Node's HTTP parser before Fastify (headers over the limit): answered on the socket.
    const { port } = new URL(t.url);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(`GET /_payctl/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(70_000)}\r\n\r\n`);
      });
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString('latin1')));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 431 /);
    expect(raw).toMatch(/\r\nCache-Control: no-store\r\n/);
  });

  /** One request on a fresh socket, read to the server's close: the status line, the headers and every byte after them. */
  async function rawExchange(request: string): Promise<{ head: string; body: Buffer }> {
    const { port } = new URL(t.url);
    const bytes = await new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      const socket = connect(Number(port), '127.0.0.1', () => socket.write(request));
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('close', () => resolve(Buffer.concat(chunks)));
      socket.on('error', reject);
    });
    const end = bytes.indexOf('\r\n\r\n');
    return { head: bytes.subarray(0, end).toString('latin1'), body: bytes.subarray(end + 4) };
  }

  it('answers HEAD as GET without the body: same status and headers, the length of the GET body', async () => {
    const path = '/_payctl/clock';
    const request = (method: string, auth: string) =>
      `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Connection: close\r\n\r\n`;
    const bearer = `Authorization: Bearer ${t.merchant.token}\r\n`;
    const get = await rawExchange(request('GET', bearer));
    const head = await rawExchange(request('HEAD', bearer));
    expect(get.head).toMatch(/^HTTP\/1\.1 200 /);
    expect(head.head).toMatch(/^HTTP\/1\.1 200 /);
    expect(head.body.length).toBe(0);
    const length = (text: string) => /\r\ncontent-length: (\d+)/i.exec(text)?.[1];
    expect(length(head.head)).toBe(String(get.body.length));
    expect(head.head).toMatch(/\r\ncontent-type: application\/json/i);
    expect(head.head).toMatch(/\r\ncache-control: no-store/i);
    // Authentication is the GET route's: no token, 401, and still no body.
    const refused = await rawExchange(request('HEAD', ''));
    expect(refused.head).toMatch(/^HTTP\/1\.1 401 /);
    expect(refused.body.length).toBe(0);
    // A path only POST serves: 405, as for any other method.
    const notServed = await rawExchange(`HEAD /v1/oauth2/token HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    expect(notServed.head).toMatch(/^HTTP\/1\.1 405 /);
    expect(notServed.head).toMatch(/\r\nallow: POST\r\n/i);
    expect(notServed.body.length).toBe(0);
  });

  it('logs a HEAD request as HEAD, though the GET route serves it', async () => {
    const lines: string[] = [];
    const logged = await startTestServer({ logLevel: 'info', logDestination: { write: (line) => void lines.push(line) } });
    try {
      const { port } = new URL(logged.url);
      await new Promise<void>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () =>
          socket.write('HEAD /_payctl/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'),
        );
        socket.on('data', () => undefined);
        socket.on('close', () => resolve());
        socket.on('error', reject);
      });
      const incoming = lines.map((line) => JSON.parse(line) as { msg?: string; req?: { method?: string; url?: string } }).filter((entry) => entry.msg === 'incoming request');
      expect(incoming.map((entry) => `${entry.req?.method} ${entry.req?.url}`)).toContain('HEAD /_payctl/health');
    } finally {
      await logged.close();
    }
  });

  it('lists HEAD beside GET among the allowed methods of a GET route', async () => {
    const result = await t.request('DELETE', '/_payctl/health');
    expect(result.status).toBe(405);
    expect(result.headers.get('allow')).toBe('GET, HEAD');
  });

  it('answers a wrong method with 405 and the allowed methods', async () => {
    const result = await t.request('DELETE', '/_payctl/clock');
    expect(result.status).toBe(405);
    expect(result.body.name).toBe('METHOD_NOT_SUPPORTED');
    expect(result.headers.get('allow')).toContain('POST');
  });

  it('answers malformed JSON with 400 MALFORMED_REQUEST_JSON', async () => {
    const result = await t.request('POST', '/_payctl/clock', { raw: '{"advance_seconds": ', headers: { 'content-type': 'application/json' } });
    expect(result.status).toBe(400);
    expect(result.body.name).toBe('INVALID_REQUEST');
    expect(result.body.details[0].issue).toBe('MALFORMED_REQUEST_JSON');
    expect(result.body.details[0].location).toBe('body');
  });

  it('answers a wrong content type with 415', async () => {
    const result = await t.request('POST', '/_payctl/clock', { raw: 'advance=1', headers: { 'content-type': 'text/plain' } });
    expect(result.status).toBe(415);
    expect(result.body.name).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(result.body.details[0].location).toBe('header');
  });

  it('answers a body over the limit with 413 and changes nothing', async () => {
    const result = await t.request('POST', '/_payctl/clock', { body: { advance_seconds: 5, pad: 'x'.repeat(1_100_000) } });
    expect(result.status).toBe(413);
    expect(result.body.name).toBe('PAYLOAD_TOO_LARGE');
    expect((await t.request('GET', '/_payctl/clock')).body.offset_seconds).toBe(0);
  });

  it.each([
    ['a missing field', {}, '/advance_seconds', 'MISSING_REQUIRED_PARAMETER', undefined],
    ['a wrong type', { advance_seconds: 'ten' }, '/advance_seconds', 'INVALID_PARAMETER_SYNTAX', 'ten'],
    ['a value below the minimum', { advance_seconds: -1 }, '/advance_seconds', 'INVALID_INTEGER_MIN_VALUE', '-1'],
    ['a value above the maximum', { advance_seconds: 1e12 }, '/advance_seconds', 'INVALID_INTEGER_MAX_VALUE', '1000000000000'],
  ])('rejects %s with a JSON pointer and issue, and changes nothing', async (_label, body, field, issue, value) => {
    const result = await t.request('POST', '/_payctl/clock', { body });
    expect(result.status).toBe(400);
    expect(result.body.name).toBe('INVALID_REQUEST');
    expect(result.body.details).toHaveLength(1);
    expect(result.body.details[0]).toMatchObject({ field, issue, location: 'body' });
    if (value !== undefined) expect(result.body.details[0].value).toBe(value);
    expect((await t.request('GET', '/_payctl/clock')).body.offset_seconds).toBe(0);
  });

  it('rejects too long strings and bad patterns', async () => {
    const tooLong = await t.request('POST', '/_payctl/accounts', { token: t.adminKey, body: { email: `${'a'.repeat(300)}@example.com` } });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.details.map((d: { issue: string }) => d.issue)).toContain('INVALID_STRING_MAX_LENGTH');
    const pattern = await t.request('POST', '/_payctl/consents', { token: t.adminKey, body: { platform_client_id: 'x', payer_id: 'lower-case-id' } });
    expect(pattern.status).toBe(400);
    expect(pattern.body.details[0]).toMatchObject({ field: '/payer_id', issue: 'INVALID_PARAMETER_SYNTAX', location: 'body' });
  });

  it('checks header lengths: Authorization up to 16000, Service-Request-Id 1..10000', async () => {
    const longAuth = await t.request('GET', '/_payctl/clock', { token: null, headers: { authorization: `Bearer ${'a'.repeat(16_001)}` } });
    expect(longAuth.status).toBe(400);
    expect(longAuth.body.details[0]).toMatchObject({ field: 'Authorization', location: 'header', issue: 'INVALID_STRING_MAX_LENGTH' });
    const atLimit = await t.request('GET', '/_payctl/clock', { token: null, headers: { authorization: `Bearer ${'a'.repeat(15_993)}` } });
    expect(atLimit.status).toBe(401);
    const longId = await t.request('GET', '/_payctl/clock', { headers: { 'Service-Request-Id': 'r'.repeat(10_001) } });
    expect(longId.status).toBe(400);
    expect(longId.body.details[0]).toMatchObject({ field: 'Service-Request-Id', location: 'header', issue: 'INVALID_STRING_MAX_LENGTH' });
    const aliasId = await t.request('GET', '/_payctl/clock', { headers: { 'PayPal-Request-Id': 'r'.repeat(10_001) } });
    expect(aliasId.body.details[0].field).toBe('PayPal-Request-Id');
    expect((await t.request('GET', '/_payctl/clock', { headers: { 'Service-Request-Id': 'r'.repeat(10_000) } })).status).toBe(200);
  });

  it('keeps the control plane admin calls behind the admin key', async () => {
    const withMerchantToken = await t.request('POST', '/_payctl/accounts', { body: {} });
    expect(withMerchantToken.status).toBe(403);
    expect(withMerchantToken.body).toMatchObject({ name: 'NOT_AUTHORIZED', details: [{ issue: 'PERMISSION_DENIED' }] });
    const health = await t.request('GET', '/_payctl/health', { token: null });
    expect(health.body.status).toBe('ok');
  });
});
