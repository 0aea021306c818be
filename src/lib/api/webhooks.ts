// The notifications API: webhook subscriptions, event types, event history, simulation,
// signature verification, and the delivery log of a payctl server.

import { z } from 'zod';
import { call } from './call.js';
import type { ApiClient, QueryValue } from './client.js';
import { authorizeOrder, captureOrder, createOrder } from './orders.js';
import { captureAuthorization, refundCapture, voidAuthorization } from './payments.js';
import { linkSchema } from './types.js';

const eventTypeSchema = z.looseObject({
  name: z.string(),
  description: z.string().optional(),
  status: z.string().optional(),
  resource_versions: z.array(z.string()).optional(),
});
export type EventType = z.infer<typeof eventTypeSchema>;

const webhookSchema = z.looseObject({
  id: z.string(),
  url: z.string(),
  event_types: z.array(eventTypeSchema),
  links: z.array(linkSchema).optional(),
});
export type Webhook = z.infer<typeof webhookSchema>;

const webhookListSchema = z.looseObject({ webhooks: z.array(webhookSchema) });
export type WebhookList = z.infer<typeof webhookListSchema>;

const eventTypeListSchema = z.looseObject({ event_types: z.array(eventTypeSchema) });
export type EventTypeList = z.infer<typeof eventTypeListSchema>;

const eventSchema = z.looseObject({
  id: z.string(),
  create_time: z.string(),
  event_type: z.string(),
  resource_type: z.string(),
  summary: z.string().optional(),
  resource: z.record(z.string(), z.unknown()),
  links: z.array(linkSchema).optional(),
});
export type WebhookEvent = z.infer<typeof eventSchema>;

const eventListSchema = z.looseObject({ events: z.array(eventSchema), count: z.number(), links: z.array(linkSchema).optional() });
export type WebhookEventList = z.infer<typeof eventListSchema>;

const attemptSchema = z.looseObject({
  number: z.number(),
  time: z.string(),
  url: z.string(),
  transmission_id: z.string(),
  status_code: z.number().nullable(),
  error: z.string().nullable(),
  duration_ms: z.number(),
});

const deliverySchema = z.looseObject({
  id: z.string(),
  event_id: z.string(),
  event_type: z.string(),
  resource_id: z.string(),
  webhook_id: z.string().nullable(),
  kind: z.string(),
  url: z.string().nullable(),
  status: z.string(),
  attempt_count: z.number(),
  next_attempt_time: z.string().nullable(),
  last_status_code: z.number().nullable(),
  last_error: z.string().nullable(),
  attempts: z.array(attemptSchema),
});
export type Delivery = z.infer<typeof deliverySchema>;
const deliveryListSchema = z.looseObject({ deliveries: z.array(deliverySchema) });
export type DeliveryList = z.infer<typeof deliveryListSchema>;

const verificationSchema = z.looseObject({ verification_status: z.enum(['SUCCESS', 'FAILURE']) });
export type Verification = z.infer<typeof verificationSchema>;

const WEBHOOKS = '/v1/notifications/webhooks';
const EVENTS = '/v1/notifications/webhooks-events';
const names = (eventTypes: readonly string[]) => eventTypes.map((name) => ({ name }));

export async function createWebhook(client: ApiClient, input: { url: string; eventTypes: readonly string[]; requestId?: string }): Promise<Webhook> {
  return call(client, webhookSchema, {
    method: 'POST',
    path: WEBHOOKS,
    body: { url: input.url, event_types: names(input.eventTypes) },
    requestId: input.requestId,
  });
}

export async function listWebhooks(client: ApiClient, options: { anchorType?: 'APPLICATION' | 'ACCOUNT' } = {}): Promise<WebhookList> {
  return call(client, webhookListSchema, { method: 'GET', path: WEBHOOKS, query: { anchor_type: options.anchorType } });
}

export async function getWebhook(client: ApiClient, id: string): Promise<Webhook> {
  return call(client, webhookSchema, { method: 'GET', path: `${WEBHOOKS}/${encodeURIComponent(id)}` });
}

/** Replaces the URL and/or the event types (JSON Patch `replace`, the only operation the API takes). */
export async function updateWebhook(
  client: ApiClient,
  id: string,
  changes: { url?: string; eventTypes?: readonly string[]; requestId?: string },
): Promise<Webhook> {
  const patch: Array<{ op: 'replace'; path: string; value: unknown }> = [];
  if (changes.url !== undefined) patch.push({ op: 'replace', path: '/url', value: changes.url });
  if (changes.eventTypes !== undefined) patch.push({ op: 'replace', path: '/event_types', value: names(changes.eventTypes) });
  return call(client, webhookSchema, { method: 'PATCH', path: `${WEBHOOKS}/${encodeURIComponent(id)}`, body: patch, requestId: changes.requestId });
}

export async function deleteWebhook(client: ApiClient, id: string, options: { requestId?: string } = {}): Promise<void> {
  await client.request({ method: 'DELETE', path: `${WEBHOOKS}/${encodeURIComponent(id)}`, requestId: options.requestId });
}

/** Every event type the service can send. */
export async function listEventTypes(client: ApiClient): Promise<EventTypeList> {
  return call(client, eventTypeListSchema, { method: 'GET', path: '/v1/notifications/webhooks-event-types' });
}

/** The event types one webhook is subscribed to. */
export async function webhookEventTypes(client: ApiClient, id: string): Promise<EventTypeList> {
  return call(client, eventTypeListSchema, { method: 'GET', path: `${WEBHOOKS}/${encodeURIComponent(id)}/event-types` });
}

export interface EventQuery {
  eventType?: string;
  transactionId?: string;
  startTime?: string;
  endTime?: string;
  pageSize?: number;
  pageToken?: string;
}

export async function listEvents(client: ApiClient, query: EventQuery = {}): Promise<WebhookEventList> {
  const params: Record<string, QueryValue> = {
    event_type: query.eventType,
    transaction_id: query.transactionId,
    start_time: query.startTime,
    end_time: query.endTime,
    page_size: query.pageSize,
    next_page_token: query.pageToken,
  };
  return call(client, eventListSchema, { method: 'GET', path: EVENTS, query: params });
}

export async function getEvent(client: ApiClient, id: string): Promise<WebhookEvent> {
  return call(client, eventSchema, { method: 'GET', path: `${EVENTS}/${encodeURIComponent(id)}` });
}

export async function resendEvent(client: ApiClient, id: string, options: { webhookIds?: readonly string[]; requestId?: string } = {}): Promise<WebhookEvent> {
  return call(client, eventSchema, {
    method: 'POST',
    path: `${EVENTS}/${encodeURIComponent(id)}/resend`,
    body: options.webhookIds && options.webhookIds.length > 0 ? { webhook_ids: options.webhookIds } : {},
    requestId: options.requestId,
  });
}

export async function simulateEvent(
  client: ApiClient,
  input: { eventType: string; webhookId?: string; url?: string; requestId?: string },
): Promise<WebhookEvent> {
  return call(client, eventSchema, {
    method: 'POST',
    path: '/v1/notifications/simulate-event',
    body: {
      event_type: input.eventType,
      ...(input.webhookId !== undefined ? { webhook_id: input.webhookId } : {}),
      ...(input.url !== undefined ? { url: input.url } : {}),
    },
    requestId: input.requestId,
  });
}

export interface SignatureHeaders {
  auth_algo: string;
  cert_url: string;
  transmission_id: string;
  transmission_sig: string;
  transmission_time: string;
}

export async function verifyWebhookSignature(
  client: ApiClient,
  input: SignatureHeaders & { webhook_id: string; webhook_event: unknown },
): Promise<Verification> {
  return call(client, verificationSchema, { method: 'POST', path: '/v1/notifications/verify-webhook-signature', body: input });
}

/** The delivery log of a payctl server (GET /_payctl/deliveries). */
export async function listDeliveries(
  client: ApiClient,
  filter: { eventId?: string; webhookId?: string; status?: string; pageSize?: number } = {},
): Promise<DeliveryList> {
  return call(client, deliveryListSchema, {
    method: 'GET',
    path: '/_payctl/deliveries',
    query: { event_id: filter.eventId, webhook_id: filter.webhookId, status: filter.status, page_size: filter.pageSize },
  });
}

// ---- helpers for the webhooks commands (no HTTP beyond the calls above, except the certificate)

/**
 * Event type names from user patterns: exact names, `*` (everything, sent as is) and globs such
 * as `PAYMENT.CAPTURE.*`, expanded against the service's list. Unknown names are left for the
 * service to refuse; a glob that matches nothing is an error.
 */
export function expandEventTypes(patterns: readonly string[], known: readonly EventType[]): string[] {
  const out: string[] = [];
  for (const raw of patterns) {
    const pattern = raw.trim();
    if (pattern === '') continue;
    if (pattern === '*') return ['*'];
    if (!pattern.includes('*')) {
      out.push(pattern);
      continue;
    }
    const regex = new RegExp(`^${pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
    const matched = known.map((type) => type.name).filter((name) => regex.test(name));
    if (matched.length === 0) throw new Error(`"${pattern}" matches no event type (see \`payctl webhooks event-types\`)`);
    out.push(...matched);
  }
  return [...new Set(out)];
}

/** The five signature values from delivery headers (PAYPAL-* or SERVICE-* names, any case). */
export function signatureHeadersFrom(headers: Record<string, string | string[] | undefined>): SignatureHeaders | undefined {
  const lower = new Map<string, string>();
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) lower.set(name.toLowerCase(), Array.isArray(value) ? value.join(',') : value);
  }
  const pick = (suffix: string) => lower.get(`paypal-${suffix}`) ?? lower.get(`service-${suffix}`);
  const values = {
    auth_algo: pick('auth-algo'),
    cert_url: pick('cert-url'),
    transmission_id: pick('transmission-id'),
    transmission_sig: pick('transmission-sig'),
    transmission_time: pick('transmission-time'),
  };
  if (Object.values(values).some((value) => value === undefined)) return undefined;
  return values as SignatureHeaders;
}

/** Headers from a file: a JSON object, or `Name: value` lines as a raw HTTP request shows them. */
export function parseHeadersText(text: string): Record<string, string> {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    const parsed = z.record(z.string(), z.union([z.string(), z.array(z.string())])).parse(JSON.parse(trimmed));
    return Object.fromEntries(Object.entries(parsed).map(([name, value]) => [name, Array.isArray(value) ? value.join(',') : value]));
  }
  const headers: Record<string, string> = {};
  for (const line of trimmed.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0 || /^[A-Z]+ \S+ HTTP\//.test(line)) continue;
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return headers;
}

/** The PEM text at a certificate URL (no credentials: certificates are public). */
export async function fetchCertificate(url: string): Promise<string> {
  const { request } = await import('undici');
  const response = await request(url, { method: 'GET', headersTimeout: 10_000, bodyTimeout: 10_000 });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`${url} answered ${response.statusCode}`);
  return text;
}

/** SHA256withRSA over `transmission_id|transmission_time|webhook_id|crc32(body)` with the certificate's key. */
export async function signatureMatches(certificatePem: string, headers: SignatureHeaders, webhookId: string, body: Buffer): Promise<boolean> {
  const [{ X509Certificate, verify }, { crc32 }] = await Promise.all([import('node:crypto'), import('node:zlib')]);
  if (headers.auth_algo !== 'SHA256withRSA') return false;
  try {
    const certificate = new X509Certificate(certificatePem);
    const signed = `${headers.transmission_id}|${headers.transmission_time}|${webhookId}|${crc32(body) >>> 0}`;
    return verify('sha256', Buffer.from(signed, 'utf8'), certificate.publicKey, Buffer.from(headers.transmission_sig, 'base64'));
  } catch {
    return false;
  }
}

/** Checks a delivery without asking the service: the certificate at the cert URL, then the signature. */
export async function verifyLocally(headers: SignatureHeaders, webhookId: string, body: Buffer): Promise<Verification> {
  let pem: string;
  try {
    pem = await fetchCertificate(headers.cert_url);
  } catch {
    return { verification_status: 'FAILURE' };
  }
  return { verification_status: (await signatureMatches(pem, headers, webhookId, body)) ? 'SUCCESS' : 'FAILURE' };
}

/** A receiver address joined with a relative path, keeping the address's own path and query. */
export function joinUrl(base: string, path: string): string {
  const url = new URL(base);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
  return url.toString();
}

/** The id of the resource an event is about, whatever its type. */
export function eventResourceId(event: { resource?: unknown }): string {
  const resource = (event.resource ?? {}) as Record<string, unknown>;
  const header = resource.batch_header as Record<string, unknown> | undefined;
  for (const value of [resource.id, resource.dispute_id, resource.payout_item_id, header?.payout_batch_id]) {
    if (typeof value === 'string') return value;
  }
  return '';
}

// ---- real flows that make the server emit an event (webhooks trigger), through the payments
// and orders client functions

const TEN_USD = { currency_code: 'USD', value: '10.00' } as const;

async function authorize(client: ApiClient): Promise<string> {
  const order = await createOrder(client, { intent: 'AUTHORIZE', amount: TEN_USD, card: true });
  const authorized = await authorizeOrder(client, order.id);
  const id = authorized.purchase_units?.[0]?.payments?.authorizations?.[0]?.id;
  if (!id) throw new Error(`order ${order.id} was authorized but its answer carried no authorization`);
  return id;
}

async function setKyc(client: ApiClient, status: 'PENDING' | 'VERIFIED'): Promise<void> {
  await client.request({ method: 'POST', path: '/_payctl/accounts/kyc', body: { status } });
}

/** Per event type: the API calls that produce it, returning the id of the resource it is about. */
const FLOWS: Record<string, (client: ApiClient) => Promise<string>> = {
  'PAYMENT.AUTHORIZATION.CREATED': (client) => authorize(client),
  'PAYMENT.AUTHORIZATION.VOIDED': async (client) => (await voidAuthorization(client, await authorize(client))).id,
  'PAYMENT.CAPTURE.COMPLETED': async (client) => (await captureAuthorization(client, await authorize(client), {})).id,
  'PAYMENT.CAPTURE.DECLINED': async (client) =>
    (
      await captureAuthorization(client, await authorize(client), {}, {
        headers: { 'Service-Mock-Response': '{"mock_application_codes":"INSTRUMENT_DECLINED"}' },
      })
    ).id,
  'PAYMENT.CAPTURE.PENDING': async (client) => {
    const id = await authorize(client);
    await setKyc(client, 'PENDING');
    try {
      return (await captureAuthorization(client, id, {})).id;
    } finally {
      await setKyc(client, 'VERIFIED');
    }
  },
  'PAYMENT.CAPTURE.REFUNDED': async (client) => {
    const captured = await captureAuthorization(client, await authorize(client), {});
    return (await refundCapture(client, captured.id, { amount: { currency_code: 'USD', value: '4.00' } })).id;
  },
  'CHECKOUT.ORDER.APPROVED': async (client) => (await createOrder(client, { intent: 'CAPTURE', amount: TEN_USD, card: true })).id,
  'CHECKOUT.ORDER.COMPLETED': async (client) => {
    const order = await createOrder(client, { intent: 'CAPTURE', amount: TEN_USD, card: true });
    return (await captureOrder(client, order.id)).id;
  },
};

export const TRIGGERABLE_EVENT_TYPES = Object.keys(FLOWS);

/** Runs the real flow for `eventType` and returns the event it produced, from the history. */
export async function triggerEvent(client: ApiClient, eventType: string): Promise<WebhookEvent> {
  const flow = FLOWS[eventType];
  if (!flow) throw new Error(`no real flow for ${eventType}`);
  const resourceId = await flow(client);
  const found = await listEvents(client, { eventType, transactionId: resourceId, pageSize: 1 });
  const event = found.events[0];
  if (!event) throw new Error(`the flow ran (resource ${resourceId}) but no ${eventType} event was recorded`);
  return event;
}
