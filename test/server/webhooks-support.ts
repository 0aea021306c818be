// Test support for webhook tests: a real receiver on 127.0.0.1, outbox events written the way
// domains write them, and bounded polling.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeEvent, type EventEnvelope } from '../../src/server/core/events.js';
import type { TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  at: number;
  /** When the receiver sent its answer (undefined while it has not). */
  respondedAt?: number;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Never answer (the socket stays open until the receiver closes). */
  hang?: boolean;
  delayMs?: number;
}

export type Responder = (request: ReceivedRequest, index: number) => Reply;

export interface Receiver {
  url: string;
  port: number;
  received: ReceivedRequest[];
  respond(responder: Responder): void;
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

export async function startReceiver(responder: Responder = () => ({ status: 200 }), port = 0): Promise<Receiver> {
  const received: ReceivedRequest[] = [];
  let current = responder;
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) headers[name] = Array.isArray(value) ? value.join(',') : value ?? '';
      const entry: ReceivedRequest = {
        method: request.method ?? '',
        path: request.url ?? '',
        headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      received.push(entry);
      const reply = current(entry, received.length - 1);
      if (reply.hang) return;
      const send = () => {
        entry.respondedAt = Date.now();
        response.writeHead(reply.status, reply.headers ?? {});
        response.end(reply.body ?? '');
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const actualPort = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${actualPort}`,
    port: actualPort,
    received,
    respond(next) {
      current = next;
    },
    async waitFor(count, timeoutMs = 5_000) {
      await waitUntil(() => received.length >= count, timeoutMs, () => `${count} requests at the receiver (got ${received.length})`);
      return received;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A port nothing listens on (bound, then released). */
export async function freePort(): Promise<number> {
  const receiver = await startReceiver();
  const { port } = receiver;
  await receiver.close();
  return port;
}

/** waitFor (test/helpers/wait.ts) with positional arguments, as the webhook tests call it. */
export function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs = 5_000, what: string | (() => string) = 'condition'): Promise<void> {
  return waitFor(check, { timeoutMs, what });
}

export interface EmitOptions {
  eventType: string;
  resourceType: string;
  resourceId: string;
  resource?: Record<string, unknown>;
  summary?: string;
  accountId?: string;
}

/** Writes an event to the outbox in a transaction, exactly as a domain does with its state change. */
export async function emitEvent(t: TestServer, options: EmitOptions): Promise<EventEnvelope> {
  const deps = t.server.deps;
  const accountId = options.accountId ?? t.merchant.payer_id;
  return deps.storage.transaction({ name: 'test' }, (trx) =>
    writeEvent(
      trx,
      { ids: deps.ids, now: deps.clock.now(accountId), baseUrl: t.url },
      {
        accountId,
        eventType: options.eventType,
        resourceType: options.resourceType,
        resourceId: options.resourceId,
        resource: options.resource ?? { id: options.resourceId, status: 'COMPLETED' },
        summary: options.summary ?? `${options.eventType} for ${options.resourceId}`,
      },
    ),
  );
}

export async function subscribe(t: TestServer, url: string, names: string[] = ['*'], token?: string): Promise<string> {
  const created = await t.request('POST', '/v1/notifications/webhooks', {
    body: { url, event_types: names.map((name) => ({ name })) },
    ...(token ? { token } : {}),
  });
  if (created.status !== 201) throw new Error(`subscribe failed: ${created.status} ${created.text}`);
  return created.body.id as string;
}

export interface DeliveryView {
  id: string;
  event_id: string;
  event_type: string;
  webhook_id: string | null;
  kind: string;
  url: string | null;
  status: string;
  attempt_count: number;
  next_attempt_time: string | null;
  last_status_code: number | null;
  last_error: string | null;
  attempts: Array<{ number: number; time: string; url: string; transmission_id: string; status_code: number | null; error: string | null; duration_ms: number }>;
}

export async function deliveries(t: TestServer, query = '', token?: string): Promise<DeliveryView[]> {
  const result = await t.request('GET', `/_payctl/deliveries${query ? `?${query}` : ''}`, token ? { token } : {});
  if (result.status !== 200) throw new Error(`deliveries failed: ${result.status} ${result.text}`);
  return result.body.deliveries as DeliveryView[];
}

/** Waits until the event's delivery (the only one, or to `webhookId`) matches. */
export async function waitForDelivery(
  t: TestServer,
  eventId: string,
  check: (delivery: DeliveryView) => boolean,
  timeoutMs = 5_000,
): Promise<DeliveryView> {
  let last: DeliveryView | undefined;
  await waitUntil(async () => {
    [last] = await deliveries(t, `event_id=${eventId}`);
    return last !== undefined && check(last);
  }, timeoutMs, () => `delivery of ${eventId} (last: ${JSON.stringify(last && { status: last.status, attempts: last.attempt_count })})`);
  return last as DeliveryView;
}

let barriers = 0;

export interface RetryBarrier {
  receiver: Receiver;
  /**
   * Writes a control event whose first attempt fails; resolves once that attempt is recorded, with
   * `passed`: a function that resolves once the control's retry was made and recorded.
   */
  arm(): Promise<() => Promise<void>>;
}

/**
 * The positive control of a "nothing more is attempted once the clock has moved" check: deliveries
 * of their own (their own receiver, subscribed to `eventType` only, which the test's other
 * subscriptions must not name) that fail their first attempt, so each is due again a fixed time
 * later on the account clock: 60 s (an answer of 500), or `retryAfterSeconds` (a 429 with
 * Retry-After, for a server whose clock moves only when the test moves it). Arm it after the
 * deliveries under test made their last attempt, move the clock past the control's retry, then
 * `passed()` resolves once that retry was made and recorded: the dispatcher has read the account's
 * due deliveries at the new time, and anything under test that was due by then (due no later than
 * the control, so claimed in the same read or an earlier one, and started no later than the control
 * in that read's launch) would have been attempted alongside it.
 */
export async function retryBarrier(
  t: TestServer,
  options: { eventType?: string; retryAfterSeconds?: number } = {},
): Promise<RetryBarrier> {
  const { eventType = 'PAYMENT.CAPTURE.DENIED', retryAfterSeconds } = options;
  const seen = new Set<string>();
  const receiver = await startReceiver((request) => {
    const { id } = JSON.parse(request.body) as { id: string };
    if (seen.has(id)) return { status: 200 };
    seen.add(id);
    return retryAfterSeconds === undefined ? { status: 500 } : { status: 429, headers: { 'retry-after': String(retryAfterSeconds) } };
  });
  await subscribe(t, receiver.url, [eventType]);
  return {
    receiver,
    async arm() {
      barriers += 1;
      const event = await emitEvent(t, { eventType, resourceType: 'capture', resourceId: `BARRIER${String(barriers).padStart(10, '0')}` });
      await waitForDelivery(t, event.id, (d) => d.attempt_count === 1);
      return async function passed() {
        const delivery = await waitForDelivery(t, event.id, (d) => d.status !== 'PENDING' || d.attempt_count > 1);
        if (delivery.status !== 'DELIVERED' || delivery.attempt_count !== 2) {
          throw new Error(`the control delivery ended ${delivery.status} after ${delivery.attempt_count} attempts, not DELIVERED after 2`);
        }
      };
    },
  };
}

/** The headers of a delivery as verify-webhook-signature wants them. */
export function verificationRequest(request: ReceivedRequest, webhookId: string): Record<string, unknown> {
  return {
    auth_algo: request.headers['paypal-auth-algo'],
    cert_url: request.headers['paypal-cert-url'],
    transmission_id: request.headers['paypal-transmission-id'],
    transmission_sig: request.headers['paypal-transmission-sig'],
    transmission_time: request.headers['paypal-transmission-time'],
    webhook_id: webhookId,
    webhook_event: JSON.parse(request.body) as unknown,
  };
}

/** A bearer token from any server (for servers started without the test harness). */
export async function tokenAt(baseUrl: string, clientId: string, clientSecret: string): Promise<string> {
  const response = await fetch(`${baseUrl}/v1/oauth2/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
  const json = (await response.json()) as { access_token?: string };
  if (!json.access_token) throw new Error(`token request failed: ${response.status}`);
  return json.access_token;
}
