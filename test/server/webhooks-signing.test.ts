// Signed deliveries: the headers, the certificate, local verification and verify-webhook-signature.

import { X509Certificate, generateKeyPairSync, verify } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selfSignedCertificate } from '../../src/server/notifications/x509.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { emitEvent, startReceiver, subscribe, verificationRequest, type ReceivedRequest, type Receiver } from './webhooks-support.js';

let t: TestServer;
let receiver: Receiver;
let webhookId: string;
let delivered: ReceivedRequest;
let storedBody: string;

beforeAll(async () => {
  t = await startTestServer({ memory: true });
  receiver = await startReceiver();
  webhookId = await subscribe(t, `${receiver.url}/hooks`, ['PAYMENT.CAPTURE.COMPLETED']);
  const event = await emitEvent(t, {
    eventType: 'PAYMENT.CAPTURE.COMPLETED',
    resourceType: 'capture',
    resourceId: '7TK53561YB803214S',
    resource: { id: '7TK53561YB803214S', status: 'COMPLETED', amount: { currency_code: 'USD', value: '10.00' }, note: 'ünïcödé €' },
  });
  [delivered] = (await receiver.waitFor(1)) as [ReceivedRequest];
  storedBody = JSON.stringify(event);
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

const verifyCall = (body: Record<string, unknown>) => t.request('POST', '/v1/notifications/verify-webhook-signature', { body });

describe('a signed delivery', () => {
  it('is a POST of the exact stored envelope to the callback path', async () => {
    expect(delivered.method).toBe('POST');
    expect(delivered.path).toBe('/hooks/captures/7TK53561YB803214S');
    expect(delivered.headers['content-type']).toBe('application/json');
    expect(delivered.body).toBe(storedBody);
    const stored = await t.request('GET', `/v1/notifications/webhooks-events/${JSON.parse(storedBody).id}`);
    expect(JSON.stringify(stored.body)).toBe(delivered.body);
  });

  it('carries the five signature headers, and SERVICE- copies of them', () => {
    const h = delivered.headers;
    expect(h['paypal-transmission-id']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(h['paypal-transmission-time']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(h['paypal-transmission-sig']).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
    expect(h['paypal-auth-algo']).toBe('SHA256withRSA');
    expect(h['paypal-cert-url']).toMatch(new RegExp(`^${t.url}/v1/notifications/certs/CERT-[0-9a-f]{24}$`));
    for (const name of ['transmission-id', 'transmission-time', 'transmission-sig', 'cert-url', 'auth-algo']) {
      expect(h[`service-${name}`]).toBe(h[`paypal-${name}`]);
    }
  });

  it('verifies locally with the served certificate over id|time|webhook id|crc32(body)', async () => {
    const certResponse = await fetch(delivered.headers['paypal-cert-url'] as string);
    expect(certResponse.status).toBe(200);
    const cert = new X509Certificate(await certResponse.text());
    expect(cert.verify(cert.publicKey)).toBe(true);
    const crc = crc32(Buffer.from(delivered.body, 'utf8')) >>> 0;
    const signed = (id: string) =>
      `${delivered.headers['paypal-transmission-id']}|${delivered.headers['paypal-transmission-time']}|${id}|${crc}`;
    const signature = Buffer.from(delivered.headers['paypal-transmission-sig'] as string, 'base64');
    expect(verify('sha256', Buffer.from(signed(webhookId)), cert.publicKey, signature)).toBe(true);
    expect(verify('sha256', Buffer.from(signed('SOMEOTHERWEBHOOK')), cert.publicKey, signature)).toBe(false);
  });
});

describe('the certificate', () => {
  it('is served without credentials and stays the same key across deliveries', async () => {
    const response = await fetch(delivered.headers['paypal-cert-url'] as string);
    expect(response.headers.get('content-type')).toContain('application/x-pem-file');
    const pem = await response.text();
    expect(pem).toMatch(/^-----BEGIN CERTIFICATE-----\n[A-Za-z0-9+/=\n]+-----END CERTIFICATE-----\n$/);
    const cert = new X509Certificate(pem);
    expect(cert.subject).toContain('CN=payctl webhook signing');
    expect(cert.publicKey.asymmetricKeyType).toBe('rsa');
    expect(cert.publicKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(new Date(cert.validTo).getTime()).toBeGreaterThan(Date.now() + 10 * 365 * 86_400_000);
  });

  it('answers 404 for an unknown certificate id', async () => {
    const response = await t.request('GET', '/v1/notifications/certs/CERT-000000000000000000000000', { token: null });
    expect(response.status).toBe(404);
    expect(response.body.name).toBe('RESOURCE_NOT_FOUND');
  });

  it('encodes validity in GeneralizedTime from 2050 and UTCTime before, as openssl and Node expect', () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const pem = selfSignedCertificate({
      privateKey,
      commonName: 'x',
      organization: 'y',
      notBefore: new Date('2049-12-31T23:59:59Z'),
      notAfter: new Date('2050-01-01T00:00:00Z'),
    });
    const cert = new X509Certificate(pem);
    expect(new Date(cert.validFrom).toISOString()).toBe('2049-12-31T23:59:59.000Z');
    expect(new Date(cert.validTo).toISOString()).toBe('2050-01-01T00:00:00.000Z');
    expect(cert.verify(cert.publicKey)).toBe(true);
  });
});

describe('verify-webhook-signature', () => {
  it('answers SUCCESS for the genuine delivery', async () => {
    const result = await verifyCall(verificationRequest(delivered, webhookId));
    expect(result.status).toBe(200);
    expect(result.body).toEqual({ verification_status: 'SUCCESS' });
  });

  it('answers SUCCESS when the event is posted with its keys in another order', async () => {
    const request = verificationRequest(delivered, webhookId);
    const event = request.webhook_event as Record<string, unknown>;
    const reordered = Object.fromEntries(Object.entries(event).reverse());
    expect(JSON.stringify(reordered)).not.toBe(delivered.body);
    expect((await verifyCall({ ...request, webhook_event: reordered })).body.verification_status).toBe('SUCCESS');
  });

  const body = () => verificationRequest(delivered, webhookId);
  const changeOneChar = (text: string) => text.slice(0, -2) + (text.at(-2) === 'A' ? 'B' : 'A') + text.slice(-1);

  it.each([
    ['one byte of the body', () => ({ ...body(), webhook_event: JSON.parse(delivered.body.replace('10.00', '10.01')) })],
    ['the summary', () => ({ ...body(), webhook_event: { ...JSON.parse(delivered.body), summary: 'changed' } })],
    ['a field added to the body', () => ({ ...body(), webhook_event: { ...JSON.parse(delivered.body), extra: true } })],
    ['the webhook id', () => ({ ...body(), webhook_id: 'OTHERWEBHOOK123' })],
    ['the transmission id', () => ({ ...body(), transmission_id: changeOneChar(delivered.headers['paypal-transmission-id'] as string) })],
    ['the transmission time', () => ({ ...body(), transmission_time: '2001-01-01T00:00:00Z' })],
    ['the signature', () => ({ ...body(), transmission_sig: changeOneChar(delivered.headers['paypal-transmission-sig'] as string) })],
    ['the algorithm', () => ({ ...body(), auth_algo: 'SHA1withRSA' })],
    ['the certificate URL', () => ({ ...body(), cert_url: `${t.url}/v1/notifications/certs/CERT-000000000000000000000000` })],
    ['a foreign certificate URL', () => ({ ...body(), cert_url: 'https://example.com/cert.pem' })],
    ['a signature that is not base64', () => ({ ...body(), transmission_sig: '!!!' })],
  ])('answers FAILURE after a change to %s', async (_what, make) => {
    const result = await verifyCall(make());
    expect(result.status).toBe(200);
    expect(result.body).toEqual({ verification_status: 'FAILURE' });
  });

  it.each(['auth_algo', 'cert_url', 'transmission_id', 'transmission_sig', 'transmission_time', 'webhook_id', 'webhook_event'])(
    'refuses a request without %s',
    async (field) => {
      const request = body();
      delete request[field];
      const result = await verifyCall(request);
      expect(result.status).toBe(400);
      expect(result.body.details[0]).toMatchObject({ field: `/${field}`, issue: 'MISSING_REQUIRED_PARAMETER' });
    },
  );
});
