// The dispatcher: turns committed outbox events into deliveries, then makes the attempts.
//
// Fan-out: events past a cursor become one delivery row per matching subscription; the rows and
// the cursor move in one transaction, so an event is queued exactly once, also across restarts.
// Attempts: made outside any transaction, at most MAX_IN_FLIGHT at once and at most
// PER_RECEIVER_IN_FLIGHT per subscription (or bare URL), so a dead or slow receiver holds two slots
// and never the others; each result is written back in a short transaction.
// Order: a delivery is not attempted while an earlier event for the same subscription and
// resource still waits for its first attempt, so first attempts follow commit order. A failed
// delivery then retries on its own schedule and does not hold back later events for 3 days.

import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { addSeconds, isoMillis, isoSeconds } from '../core/clock.js';
import type { ServerDeps } from '../core/deps.js';
import { prefixedId } from '../core/ids.js';
import { inTransaction } from '../db/transaction.js';
import { subscriptionMatches } from './event-types.js';
import { receiverPath, joinReceiverUrl } from './receiver-paths.js';
import { MAX_ATTEMPTS, retryAfterSeconds, retryDelaySeconds } from './retry-schedule.js';
import { subscribedNames } from './service.js';
import { AUTH_ALGO, certUrl, signTransmission, type SigningKeys } from './signing.js';
import type { DeliveryStatus } from './states.js';
import * as store from './store.js';
import { guardedLookup, receiverUrlProblem } from './url-guard.js';

export const MAX_IN_FLIGHT = 8;
export const PER_RECEIVER_IN_FLIGHT = 2;
/** Per attempt: connecting, then waiting for the headers, then between body chunks. */
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** How often the dispatcher looks for new events and due retries, in real time. */
export const DISPATCH_INTERVAL_MS = 100;
const FAN_OUT_BATCH = 200;
const USER_AGENT = 'payctl-webhooks/1.0';

interface AttemptResult {
  statusCode: number | null;
  error: string | null;
  retryAfter: string | undefined;
  durationMs: number;
}

function describeError(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  return (typeof code === 'string' ? `${code}: ${message}` : message).slice(0, 500);
}

const receiverKey = (delivery: store.DeliveryRow): string => delivery.webhook_id ?? `url:${delivery.target_url ?? ''}`;

export class Dispatcher {
  readonly #inFlight = new Map<string, { receiver: string; controller: AbortController; done: Promise<void> }>();
  readonly #agent = new Agent({ connect: { lookup: guardedLookup, timeout: ATTEMPT_TIMEOUT_MS }, keepAliveTimeout: 2_000 });
  #pumping: Promise<void> | undefined;
  #again = false;
  #stopped = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly deps: ServerDeps,
    private readonly keys: SigningKeys,
  ) {}

  start(): void {
    this.#timer = setInterval(() => void this.pump(), DISPATCH_INTERVAL_MS);
    this.#timer.unref();
  }

  /** Stops taking work and abandons attempts in flight: they stay pending and run after a restart. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    for (const flight of this.#inFlight.values()) flight.controller.abort();
    while (this.#pumping) await this.#pumping;
    await Promise.allSettled([...this.#inFlight.values()].map((flight) => flight.done));
    await this.#agent.close().catch(() => undefined);
  }

  /** Queues new events and starts due attempts; does not wait for the attempts. Calls coalesce. */
  pump(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    if (this.#pumping) {
      this.#again = true;
      return this.#pumping;
    }
    this.#pumping = (async () => {
      do {
        this.#again = false;
        try {
          await this.fanOut();
          await this.startDueAttempts();
        } catch (error) {
          this.deps.log.error({ err: error }, 'webhook dispatcher pass failed');
        }
      } while (this.#again && !this.#stopped);
    })().finally(() => {
      this.#pumping = undefined;
    });
    return this.#pumping;
  }

  /** Moves events past the cursor into delivery rows, in batches, each with its cursor update. */
  async fanOut(): Promise<void> {
    for (let round = 0; round < 50 && !this.#stopped; round += 1) {
      const cursor = await store.readCursor(this.deps.db);
      if ((await store.eventsAfter(this.deps.db, cursor, 1)).length === 0) return;
      const full = await inTransaction(this.deps.db, async (trx) => {
        const events = await store.eventsAfter(trx, await store.readCursor(trx), FAN_OUT_BATCH);
        const last = events.at(-1);
        if (!last) return false;
        const subscriptions = await store.subscriptionsOfAccounts(trx, [...new Set(events.map((event) => event.account_id))]);
        const rows = events.flatMap((event) => this.deliveriesFor(event, subscriptions));
        await store.insertDeliveries(trx, rows);
        await store.writeCursor(trx, last.seq);
        return events.length === FAN_OUT_BATCH;
      });
      if (!full) return;
    }
  }

  private deliveriesFor(event: store.OutboxEvent, subscriptions: readonly store.SubscriptionRow[]): store.DeliveryRow[] {
    const matching = subscriptions.filter(
      (sub) => sub.account_id === event.account_id && event.seq > sub.from_seq && subscriptionMatches(subscribedNames(sub), event.event_type),
    );
    if (matching.length === 0) return [];
    const resource = (JSON.parse(event.body) as { resource?: unknown }).resource;
    const path = receiverPath(event.event_type, event.resource_type, event.resource_id, resource);
    const now = isoMillis(this.deps.clock.now(event.account_id));
    return matching.map((sub) => ({
      id: prefixedId(this.deps.ids, 'DLV', 20),
      account_id: event.account_id,
      event_id: event.id,
      event_seq: event.seq,
      event_type: event.event_type,
      resource_id: event.resource_id,
      webhook_id: sub.id,
      signing_webhook_id: sub.id,
      target_url: null,
      receiver_path: path,
      cert_base_url: sub.base_url,
      kind: 'EVENT',
      mock_body: null,
      status: 'PENDING',
      attempt_count: 0n,
      next_attempt_at: now,
      last_status_code: null,
      last_error: null,
      create_time: now,
      update_time: now,
    }));
  }

  private async startDueAttempts(): Promise<void> {
    for (const accountId of await store.accountsWithPendingDeliveries(this.deps.db)) {
      for (let round = 0; round < 10; round += 1) {
        const free = MAX_IN_FLIGHT - this.#inFlight.size;
        if (free <= 0 || this.#stopped) return;
        const busy = new Map<string, number>();
        for (const flight of this.#inFlight.values()) busy.set(flight.receiver, (busy.get(flight.receiver) ?? 0) + 1);
        const saturated = [...busy].filter(([, count]) => count >= PER_RECEIVER_IN_FLIGHT).map(([receiver]) => receiver);
        const now = isoMillis(this.deps.clock.now(accountId));
        const due = await store.dueDeliveries(this.deps.db, accountId, now, free, [...this.#inFlight.keys()], saturated);
        let started = 0;
        for (const delivery of due) {
          const receiver = receiverKey(delivery);
          if ((busy.get(receiver) ?? 0) >= PER_RECEIVER_IN_FLIGHT || this.#inFlight.size >= MAX_IN_FLIGHT) continue;
          busy.set(receiver, (busy.get(receiver) ?? 0) + 1);
          this.launch(delivery, receiver);
          started += 1;
        }
        if (started === 0 || due.length < free) break;
      }
    }
  }

  private launch(delivery: store.DueDelivery, receiver: string): void {
    const controller = new AbortController();
    const done = this.attempt(delivery, controller.signal)
      .catch((error: unknown) => this.deps.log.error({ err: error, delivery: delivery.id }, 'webhook attempt failed'))
      .finally(() => {
        this.#inFlight.delete(delivery.id);
        if (!this.#stopped) void this.pump();
      });
    this.#inFlight.set(delivery.id, { receiver, controller, done });
  }

  private async attempt(delivery: store.DueDelivery, signal: AbortSignal): Promise<void> {
    const body = delivery.mock_body ?? delivery.event_body;
    const base = delivery.target_url ?? delivery.subscription_url;
    if (body === null || base === null) {
      await this.finish(delivery, 'CANCELLED', 'the event or its subscription no longer exists');
      return;
    }
    const url = joinReceiverUrl(base, delivery.receiver_path);
    const key = await this.keys.current();
    const startedAt = this.deps.clock.now(delivery.account_id);
    const transmission = { transmissionId: randomUUID(), transmissionTime: isoSeconds(startedAt), webhookId: delivery.signing_webhook_id };
    const problem = receiverUrlProblem(url);
    const result: AttemptResult = problem
      ? { statusCode: null, error: problem.description, retryAfter: undefined, durationMs: 0 }
      : await this.post(url, body, {
          'PAYPAL-TRANSMISSION-ID': transmission.transmissionId,
          'PAYPAL-TRANSMISSION-TIME': transmission.transmissionTime,
          'PAYPAL-TRANSMISSION-SIG': signTransmission(key, transmission, body),
          'PAYPAL-CERT-URL': certUrl(delivery.cert_base_url, key),
          'PAYPAL-AUTH-ALGO': AUTH_ALGO,
        }, signal);
    if (this.#stopped) return;
    await this.record(delivery, { url, startedAt, transmissionId: transmission.transmissionId, result });
  }

  /** One POST. The signature headers go out under their public names and with a SERVICE- prefix. */
  private async post(url: string, body: string, signature: Record<string, string>, signal: AbortSignal): Promise<AttemptResult> {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...signature };
    for (const [name, value] of Object.entries(signature)) headers[name.replace(/^PAYPAL-/, 'SERVICE-')] = value;
    const started = performance.now();
    try {
      const response = await request(url, {
        method: 'POST',
        headers,
        body,
        dispatcher: this.#agent,
        headersTimeout: ATTEMPT_TIMEOUT_MS,
        bodyTimeout: ATTEMPT_TIMEOUT_MS,
        signal,
      });
      await response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
      const retryAfter = response.headers['retry-after'];
      return {
        statusCode: response.statusCode,
        error: null,
        retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
        durationMs: Math.round(performance.now() - started),
      };
    } catch (error) {
      return { statusCode: null, error: describeError(error), retryAfter: undefined, durationMs: Math.round(performance.now() - started) };
    }
  }

  private async record(
    delivery: store.DueDelivery,
    attempt: { url: string; startedAt: Date; transmissionId: string; result: AttemptResult },
  ): Promise<void> {
    const number = Number(delivery.attempt_count) + 1;
    const { statusCode, error, retryAfter } = attempt.result;
    let status: DeliveryStatus = 'PENDING';
    let next: string | null = null;
    if (statusCode !== null && statusCode >= 200 && statusCode < 300) status = 'DELIVERED';
    else if (statusCode === 410) status = 'GONE';
    else if (number >= MAX_ATTEMPTS) status = 'FAILED';
    else {
      const honoured = statusCode === 429 ? retryAfterSeconds(retryAfter, Date.now()) : undefined;
      next = isoMillis(addSeconds(attempt.startedAt, honoured ?? retryDelaySeconds(number) ?? 0));
    }
    const now = isoMillis(this.deps.clock.now(delivery.account_id));
    await inTransaction(this.deps.db, async (trx) => {
      if (!(await store.findDelivery(trx, delivery.id))) return; // deleted by a reset meanwhile
      await store.recordAttempt(
        trx,
        {
          seq: null,
          delivery_id: delivery.id,
          account_id: delivery.account_id,
          attempt_number: BigInt(number),
          attempt_time: isoMillis(attempt.startedAt),
          url: attempt.url,
          transmission_id: attempt.transmissionId,
          status_code: statusCode === null ? null : BigInt(statusCode),
          error,
          duration_ms: BigInt(attempt.result.durationMs),
        },
        { status, next_attempt_at: next, last_status_code: statusCode === null ? null : BigInt(statusCode), last_error: error, update_time: now },
      );
    });
  }

  private async finish(delivery: store.DeliveryRow, status: DeliveryStatus, reason: string): Promise<void> {
    const now = isoMillis(this.deps.clock.now(delivery.account_id));
    await inTransaction(this.deps.db, (trx) =>
      trx
        .updateTable('webhook_deliveries')
        .set({ status, next_attempt_at: null, last_error: reason, update_time: now })
        .where('id', '=', delivery.id)
        .where('status', '=', 'PENDING')
        .execute(),
    );
  }
}
