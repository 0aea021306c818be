// The dispatcher: turns committed outbox events into deliveries, then makes the attempts.
//
// Fan-out: events not yet fanned out are claimed in outbox order and become one delivery row per
// matching subscription; the rows and the events' flag change in one transaction, one fan-out at a
// time across servers, so an event is queued exactly once, also across restarts and replicas.
// Attempts: due rows are claimed in batches (a short lease of LEASE_MS in the row, renewed every
// RENEW_INTERVAL_MS while this server still holds the delivery: queued, in flight or finished but
// not recorded; another server on the same database skips them until it runs out) into a queue per receiver (a subscription; all of a
// merchant's simulations to bare URLs count as one receiver) and sent outside any transaction,
// each within one deadline (attempt.ts). Slots are shared fairly: at most MAX_IN_FLIGHT at once,
// at most a merchant's share of them per merchant (merchantShare), at most PER_RECEIVER_IN_FLIGHT
// per subscription and SIMULATED_URL_IN_FLIGHT for a merchant's bare URLs; free slots go to
// merchants in turn, and to a merchant's receivers in turn. So one merchant's backlog or slow
// receivers never take the slots another merchant's delivery needs, and a slot is held at most
// ATTEMPT_TIMEOUT_MS. Results are written back in batches, one short transaction each, only while
// the lease is still ours; a server killed mid-attempt stops renewing, its leases run out within
// LEASE_MS and another server makes those attempts. A server stalled longer than LEASE_MS (a paused
// process) may find its deliveries taken over: the renewal drops them and the record refuses them.
// Order: a delivery is not read while an earlier event for the same subscription and resource
// still waits for its first attempt (see store.dueDeliveries), so first attempts follow commit
// order; a failed delivery then retries on its own schedule and does not hold back later events.

import { randomUUID } from 'node:crypto';
import type { Agent } from 'undici';
import { isoMillis, isoSeconds } from '../core/clock.js';
import type { ServerDeps } from '../core/deps.js';
import { newLeaseOwner } from '../db/job-leases.js';
import { eventTarget, newDelivery } from './delivery-rows.js';
import { subscriptionMatches } from './event-types.js';
import { receiverPath, joinReceiverUrl } from './receiver-paths.js';
import { ATTEMPT_TIMEOUT_MS, attemptRecord, loadUndici, postDelivery, type Finished } from './attempt.js';
import { subscribedNames } from './service.js';
import { AUTH_ALGO, certUrl, signTransmissionAsync, type SigningKeys } from './signing.js';
import * as store from './store.js';
import { guardedLookup, receiverUrlProblem } from './url-guard.js';

export const MAX_IN_FLIGHT = 32;
/**
 * An attempt holds its slot while its signature is computed on the thread pool (~1 ms of CPU, more
 * while the main thread is busy) and while the receiver answers. With 4 per receiver, one receiver
 * taking 10,000 events got ~500-1,000 of them while the events were being created and ~950/s after;
 * with 8, ~900-1,660 and the run was 13.7 s instead of 14.9 s (mean of 7 alternating runs). 16 was
 * no better: the deliveries then slowed the requests that create the events.
 */
export const PER_RECEIVER_IN_FLIGHT = 8;
/**
 * A merchant's share of the slots: MAX_IN_FLIGHT divided among the merchants with work queued or in
 * flight, never more than half of them (so a merchant alone cannot take the slots a second one
 * needs the moment its event arrives) and never fewer than PER_RECEIVER_IN_FLIGHT.
 */
export const MERCHANT_MAX_IN_FLIGHT = MAX_IN_FLIGHT / 2;
export function merchantShare(activeMerchants: number): number {
  return Math.min(MERCHANT_MAX_IN_FLIGHT, Math.max(PER_RECEIVER_IN_FLIGHT, Math.floor(MAX_IN_FLIGHT / Math.max(1, activeMerchants))));
}
/** simulate-event to bare URLs (any address the caller names): all of a merchant's together. */
export const SIMULATED_URL_IN_FLIGHT = 4;
/** How often the dispatcher looks for new events and due retries, in real time. */
export const DISPATCH_INTERVAL_MS = 100;
const FAN_OUT_BATCH = 200;
/**
 * Deliveries claimed by one read of an account. A claim leases what this server will send over the
 * next fraction of a second, not a whole backlog: at 256, one of two servers on one database took
 * the first pending event of all 200 resources of a receiver at once and sent them 8 at a time
 * while the other, held back by per-resource order, found nothing to claim (both servers held
 * leases in about 15% of samples of reliability/jobs-replicas.test.ts, none in 2 of 3 runs); at 64
 * both held leases in nearly every sample and a server killed mid-batch strands fewer deliveries
 * until LEASE_MS runs out. One receiver's queue refills from the next read once it empties.
 */
const READ_BATCH = 64;
const QUEUE_PER_RECEIVER = 256;
const WIDE_READ_INTERVAL_MS = 500;
const ACCOUNTS_TTL_MS = 1_000;
/** Finished attempts are written together after this long: one commit (one fsync) for many. */
const RECORD_DELAY_MS = 25;
/**
 * How long a claim or a renewal keeps a delivery ours. Short, so a killed server's deliveries move
 * on within seconds; the holder renews it every RENEW_INTERVAL_MS for as long as it holds the
 * delivery (an attempt may last ATTEMPT_TIMEOUT_MS, longer than the lease).
 */
export const LEASE_MS = 5_000;
/** How often the leases of held deliveries are renewed (one statement for all of them). */
export const RENEW_INTERVAL_MS = 1_000;
/**
 * A queued delivery starts only with this much of its lease left as last claimed or renewed (time
 * for the next renewals to land, a late one included), else it is dropped from the queue and
 * claimed again: no attempt starts on a lease that may run out before it is renewed.
 */
const LEASE_LEFT_TO_START_MS = 2 * RENEW_INTERVAL_MS;

interface Flight {
  receiver: string;
  controller: AbortController;
  done: Promise<void>;
}

/** A subscription, or (for simulations to bare URLs) the merchant: each bare URL is not a receiver of its own. */
const receiverKey = (delivery: store.DeliveryRow): string => delivery.webhook_id ?? `url:${delivery.account_id}`;
const receiverLimit = (receiver: string): number => (receiver.startsWith('url:') ? SIMULATED_URL_IN_FLIGHT : PER_RECEIVER_IN_FLIGHT);

export class Dispatcher {
  /** Made with the first attempt (undici loads then). */
  #agent: Promise<Agent> | undefined;
  /** Read from the database and due, not started yet, per receiver. */
  readonly #queues = new Map<string, store.DueDelivery[]>();
  /** Queued delivery ids, and when (Date.now() ms) each one's lease ends. */
  readonly #queuedIds = new Map<string, number>();
  /** This server's identity as a holder of delivery leases (random per start). */
  readonly #owner = newLeaseOwner();
  readonly #inFlight = new Map<string, Flight>();
  readonly #busy = new Map<string, number>();
  /** Attempts in flight per merchant. */
  readonly #merchantBusy = new Map<string, number>();
  /** Finished attempts not yet written; their deliveries must not be read again meanwhile. */
  #finished: Finished[] = [];
  readonly #unrecorded = new Set<string>();
  /**
   * Deliveries whose attempts were recorded since the current read began: a claim that ran before
   * the record committed returns them as they were (attempt count, due time), so they are not queued.
   */
  readonly #recordedSinceRead = new Set<string>();
  /** Writes of finished attempts: all that have piled up, again while more come in. */
  readonly #recording = new Passes(
    () => this.recordPass(),
    (asked) => asked || this.#finished.length > 0,
    () => {
      if (!this.#stopped) void this.pump(false);
    },
  );
  /** The deliveries of the batch being recorded now. */
  readonly #recordingIds = new Set<string>();
  #recordTimer: NodeJS.Timeout | undefined;
  readonly #pumping = new Passes(
    () => this.pumpPass(),
    (asked) => asked && !this.#stopped,
  );
  /** Whether the next pass should read due deliveries (set by whatever may have made some due). */
  #readWanted = true;
  #lastWideRead = 0;
  /** The last read claimed no delivery of any account: the next one asks first whether any is due (`readDue`). */
  #claimedNothing = false;
  #accounts: { at: number; ids: string[] } | undefined;
  #stopped = false;
  #timer: NodeJS.Timeout | undefined;
  #renewTimer: NodeJS.Timeout | undefined;
  #renewing: Promise<void> | undefined;
  /** In-flight deliveries whose lease a renewal found taken over: their results are not recorded. */
  readonly #lost = new Set<string>();

  constructor(
    private readonly deps: ServerDeps,
    private readonly keys: SigningKeys,
  ) {}

  start(): void {
    this.#timer = setInterval(() => void this.pump(), DISPATCH_INTERVAL_MS);
    this.#timer.unref();
    this.#renewTimer = setInterval(() => void this.renewLeases(), RENEW_INTERVAL_MS);
    this.#renewTimer.unref();
  }

  /**
   * Stops taking work; attempts in flight are abandoned and run again after a restart, or at once by
   * another server: the leases of what was queued or abandoned are given back.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    if (this.#renewTimer) clearInterval(this.#renewTimer);
    for (const flight of this.#inFlight.values()) flight.controller.abort();
    while (this.#pumping.running) await this.#pumping.running;
    const held = [...this.#queuedIds.keys(), ...this.#inFlight.keys()];
    await Promise.allSettled([...this.#inFlight.values()].map((flight) => flight.done));
    if (this.#recordTimer) clearTimeout(this.#recordTimer);
    this.#recordTimer = undefined;
    await this.record();
    while (this.#renewing) await this.#renewing;
    await this.releaseLeases(held).catch((error: unknown) => this.deps.log.warn({ err: error }, 'webhook delivery leases were not given back'));
    await this.#agent?.then((agent) => agent.close()).catch(() => undefined);
  }

  /** Forgets queued (not started) deliveries, e.g. of a deleted webhook or a reset account. */
  forget(matches: (delivery: store.DeliveryRow) => boolean): void {
    this.#readWanted = true;
    for (const [receiver, queue] of this.#queues) {
      const kept = queue.filter((delivery) => !matches(delivery));
      for (const delivery of queue) if (!kept.includes(delivery)) this.#queuedIds.delete(delivery.id);
      if (kept.length === 0) this.#queues.delete(receiver);
      else this.#queues.set(receiver, kept);
    }
  }

  /**
   * Queues new events, reads due deliveries (unless `read` is false and nothing asked for a read)
   * and starts attempts; does not wait for them. Calls coalesce.
   */
  pump(read = true): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    if (read) this.#readWanted = true;
    return this.#pumping.run();
  }

  private async pumpPass(): Promise<void> {
    try {
      await this.fanOut();
      await this.readDue();
      this.launchQueued();
    } catch (error) {
      this.deps.log.error({ err: error }, 'webhook dispatcher pass failed');
    }
  }

  /**
   * Turns events not fanned out yet into delivery rows, in batches, each marking its events in the
   * same transaction. One server fans out at a time (`exclusive`): batches taken side by side could
   * commit a resource's later event's deliveries before its earlier one's, and the order of first
   * attempts (store.claimDueDeliveries) rests on those rows.
   */
  private async fanOut(): Promise<void> {
    for (let round = 0; round < 50 && !this.#stopped; round += 1) {
      if (!(await store.hasUnfannedEvents(this.deps.db))) return;
      const full = await this.deps.storage.transaction({ name: 'webhooks.fan-out', exclusive: 'webhooks.fan-out' }, async (trx) => {
        const events = await store.claimUnfannedEvents(trx, FAN_OUT_BATCH);
        if (events.length === 0) return false;
        const subscriptions = await store.subscriptionsOfAccounts(trx, [...new Set(events.map((event) => event.account_id))]);
        const rows = events.flatMap((event) => this.deliveriesFor(event, subscriptions));
        await store.insertDeliveries(trx, rows);
        if (rows.length > 0) this.#readWanted = true;
        await store.markFannedOut(trx, events.map((event) => event.seq));
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
    return matching.map((sub) => newDelivery(this.deps.ids, event.account_id, now, eventTarget(event, sub, path, 'EVENT')));
  }

  /**
   * Claims due deliveries into the queues. The plain read takes the first rows in due order; when
   * those all belong to receivers that already have work queued (one receiver's backlog in
   * front), a wider read that skips those receivers finds the others' work, at most every
   * WIDE_READ_INTERVAL_MS because it walks the backlog.
   */
  private async readDue(): Promise<void> {
    if (!this.#readWanted) return;
    this.#readWanted = false;
    this.#recordedSinceRead.clear();
    const accounts = await this.accounts();
    // After a read that claimed nothing, one read first: a claim per account is a write transaction
    // (on SQLite it takes the writer's lock), run ten times a second even when nothing is pending.
    // While reads claim work they go on without it: on SQLite it would wait its turn on the
    // connection before each claim.
    if (this.#claimedNothing && !(await store.anyDeliveryDue(this.deps.db, this.latestClock(accounts)))) return;
    let claimed = 0;
    const exclude = [...this.#inFlight.keys(), ...this.#unrecorded];
    for (const accountId of accounts) {
      if (this.#stopped) return;
      const now = isoMillis(this.deps.clock.now(accountId));
      const rows = await this.claim(accountId, now, exclude, []);
      claimed += rows.length;
      if (this.enqueue(rows) > 0 || rows.length < READ_BATCH) continue;
      if (Date.now() - this.#lastWideRead < WIDE_READ_INTERVAL_MS) {
        this.#readWanted = true;
        continue;
      }
      this.#lastWideRead = Date.now();
      const wider = await this.claim(accountId, now, exclude, [...this.#queues.keys()]);
      claimed += wider.length;
      this.enqueue(wider);
    }
    this.#claimedNothing = claimed === 0;
  }

  /** Claims (leases) up to READ_BATCH due deliveries of one account, in one short transaction. */
  private async claim(accountId: string, now: string, excludeIds: readonly string[], excludeReceivers: readonly string[]): Promise<store.DueDelivery[]> {
    const nowMs = Date.now();
    const lease = { owner: this.#owner, nowMs, untilMs: nowMs + LEASE_MS };
    const rows = await this.deps.storage.transaction({ name: 'webhooks.claim' }, (trx) =>
      store.claimDueDeliveries(trx, accountId, now, READ_BATCH, excludeIds, excludeReceivers, lease),
    );
    const current = rows.filter((row) => !this.#recordedSinceRead.has(row.id));
    // Stale copies are claimed (ours) but not queued: the next read claims them again as they are now.
    if (current.length < rows.length) this.#readWanted = true;
    return current;
  }

  /**
   * Renews the leases of every delivery this server holds (queued, in flight, finished and not
   * recorded), in one statement. A delivery the renewal does not find ours any more (its lease ran
   * out while this server was stalled and another server took it, or it was deleted) is dropped
   * from the queue, its attempt in flight is aborted and its result is not recorded. Calls coalesce.
   */
  renewLeases(): Promise<void> {
    if (this.#renewing) return this.#renewing;
    const held = [...new Set([...this.#queuedIds.keys(), ...this.#inFlight.keys(), ...this.#unrecorded])];
    if (this.#stopped || held.length === 0) return Promise.resolve();
    const untilMs = Date.now() + LEASE_MS;
    this.#renewing = (async () => {
      try {
        const kept = new Set(
          await this.deps.storage.transaction({ name: 'webhooks.renew-leases' }, (trx) => store.renewDeliveryLeases(trx, this.#owner, held, untilMs)),
        );
        for (const id of held) if (kept.has(id) && this.#queuedIds.has(id)) this.#queuedIds.set(id, untilMs);
        // Missing ones being recorded now (locked by the record, or recorded already) are the record's to decide.
        const missing = held.filter((id) => !kept.has(id) && !this.#recordingIds.has(id));
        // Skipped as locked (by this server's own claim, say) is not lost: only a row no longer ours is.
        const lost = missing.length > 0 ? await store.deliveriesNotHeld(this.deps.db, this.#owner, missing) : [];
        if (lost.length > 0) this.dropLost(lost);
      } catch (error) {
        // The leases keep their old ends; a queued delivery whose lease gets short is not started.
        this.deps.log.warn({ err: error }, 'renewing webhook delivery leases failed');
      }
    })().finally(() => {
      this.#renewing = undefined;
    });
    return this.#renewing;
  }

  /**
   * Forgets deliveries a renewal did not find ours. One recorded meanwhile (its lease given back)
   * is no longer queued, in flight or waiting in #finished, so nothing of it is touched.
   */
  private dropLost(ids: readonly string[]): void {
    const lost = new Set(ids);
    const queued = ids.filter((id) => this.#queuedIds.has(id));
    if (queued.length > 0) this.forget((delivery) => lost.has(delivery.id));
    let inFlight = 0;
    for (const id of ids) {
      const flight = this.#inFlight.get(id);
      if (flight) {
        inFlight += 1;
        this.#lost.add(id);
        flight.controller.abort();
      }
    }
    const waiting = this.#finished.filter(({ attempt }) => lost.has(attempt.delivery_id));
    if (waiting.length > 0) {
      this.#finished = this.#finished.filter(({ attempt }) => !lost.has(attempt.delivery_id));
      for (const { attempt } of waiting) this.#unrecorded.delete(attempt.delivery_id);
    }
    if (queued.length + inFlight + waiting.length > 0) {
      this.deps.log.warn(
        { queued: queued.length, inFlight, finished: waiting.length },
        'webhook delivery leases lost (locked or taken over when renewed): those deliveries are left to their holder',
      );
    }
  }

  /** Gives back the leases of deliveries this server will not attempt now (it is stopping). */
  private async releaseLeases(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.deps.storage.transaction({ name: 'webhooks.release' }, (trx) => store.releaseDeliveryLeases(trx, this.#owner, ids));
  }

  /**
   * The latest time on any of these accounts' clocks (each the system's plus its offset, core/clock.ts)
   * or the system's, if later, as this server knows them: what a claim of any of them would take is due by then.
   */
  private latestClock(accountIds: readonly string[]): string {
    let ahead = 0;
    for (const accountId of accountIds) ahead = Math.max(ahead, this.deps.clock.offsetMs(accountId));
    return isoMillis(new Date(this.deps.clock.systemNow().getTime() + ahead));
  }

  /** The account ids, read at most once a second (each read waits its turn on the one connection). */
  private async accounts(): Promise<string[]> {
    if (!this.#accounts || Date.now() - this.#accounts.at > ACCOUNTS_TTL_MS) {
      this.#accounts = { at: Date.now(), ids: await store.accountIds(this.deps.db) };
    }
    return this.#accounts.ids;
  }

  /** Adds rows to their receivers' queues (skipping known ones); returns how many were added. */
  private enqueue(rows: readonly store.DueDelivery[]): number {
    let added = 0;
    for (const row of rows) {
      if (this.#inFlight.has(row.id) || this.#unrecorded.has(row.id)) continue;
      const receiver = receiverKey(row);
      const queue = this.#queues.get(receiver) ?? [];
      if (queue.length >= QUEUE_PER_RECEIVER || this.#queuedIds.has(row.id)) continue;
      this.#queuedIds.set(row.id, Number(row.lease_until ?? 0n));
      queue.push(row);
      this.#queues.set(receiver, queue);
      added += 1;
    }
    return added;
  }

  /**
   * Starts queued attempts within the limits: in each round every merchant with room starts at most
   * one, from its receivers in turn (a receiver that started one moves to the back of the queue order).
   */
  private launchQueued(): void {
    let progress = true;
    while (progress && !this.#stopped && this.#inFlight.size < MAX_IN_FLIGHT) {
      progress = false;
      const share = merchantShare(this.activeMerchants());
      const startedFor = new Set<string>();
      for (const [receiver, queue] of [...this.#queues]) {
        if (this.#inFlight.size >= MAX_IN_FLIGHT) break;
        const merchant = queue[0]?.account_id;
        if (merchant === undefined || startedFor.has(merchant)) continue;
        if ((this.#merchantBusy.get(merchant) ?? 0) >= share) continue;
        if ((this.#busy.get(receiver) ?? 0) >= receiverLimit(receiver)) continue;
        const delivery = queue.shift();
        this.#queues.delete(receiver);
        if (queue.length > 0) this.#queues.set(receiver, queue);
        if (!delivery) continue;
        const leaseEnds = this.#queuedIds.get(delivery.id) ?? 0;
        this.#queuedIds.delete(delivery.id);
        if (this.#inFlight.has(delivery.id) || this.#unrecorded.has(delivery.id)) continue;
        if (leaseEnds - Date.now() < LEASE_LEFT_TO_START_MS) {
          // Waited too long in the queue: claimed again (and so renewed) by a later read, unless another server took it.
          this.#readWanted = true;
          progress = true;
          continue;
        }
        this.launch(delivery, receiver);
        startedFor.add(merchant);
        progress = true;
      }
    }
  }

  /** Merchants with deliveries queued or in flight. */
  private activeMerchants(): number {
    const merchants = new Set(this.#merchantBusy.keys());
    for (const queue of this.#queues.values()) if (queue[0]) merchants.add(queue[0].account_id);
    return merchants.size;
  }

  private launch(delivery: store.DueDelivery, receiver: string): void {
    const controller = new AbortController();
    const merchant = delivery.account_id;
    this.#busy.set(receiver, (this.#busy.get(receiver) ?? 0) + 1);
    this.#merchantBusy.set(merchant, (this.#merchantBusy.get(merchant) ?? 0) + 1);
    const done = this.attempt(delivery, controller.signal)
      .then((finished) => {
        // Its lease was taken over during the attempt: the new holder attempts and records it.
        if (this.#lost.delete(delivery.id) || !finished) return;
        this.#finished.push(finished);
        this.#unrecorded.add(delivery.id);
        this.#recordTimer ??= setTimeout(() => {
          this.#recordTimer = undefined;
          void this.record();
        }, RECORD_DELAY_MS);
      })
      .catch((error: unknown) => this.deps.log.error({ err: error, delivery: delivery.id }, 'webhook attempt failed'))
      .finally(() => {
        this.#lost.delete(delivery.id);
        this.#inFlight.delete(delivery.id);
        const busy = (this.#busy.get(receiver) ?? 1) - 1;
        if (busy > 0) this.#busy.set(receiver, busy);
        else this.#busy.delete(receiver);
        const merchantBusy = (this.#merchantBusy.get(merchant) ?? 1) - 1;
        if (merchantBusy > 0) this.#merchantBusy.set(merchant, merchantBusy);
        else this.#merchantBusy.delete(merchant);
        if (this.#stopped) return;
        // The freed slot may be another merchant's or receiver's turn: launch from every queue.
        if (this.#queues.size > 0) this.launchQueued();
        if (!this.#queues.has(receiver)) void this.pump(true);
      });
    this.#inFlight.set(delivery.id, { receiver, controller, done });
  }

  /** The connection pool, made with the first attempt (undici loads then); a failed load is retried. */
  private agent(): Promise<Agent> {
    if (this.#stopped) return Promise.reject(new Error('the dispatcher has stopped'));
    this.#agent ??= loadUndici().then(
      ({ Agent: AgentClass }) => new AgentClass({ connect: { lookup: guardedLookup, timeout: ATTEMPT_TIMEOUT_MS }, keepAliveTimeout: 2_000 }),
      (error: unknown) => {
        this.#agent = undefined;
        throw error;
      },
    );
    return this.#agent;
  }

  /** One attempt; undefined when the server stopped during it (it is made again after a restart). */
  private async attempt(delivery: store.DueDelivery, signal: AbortSignal): Promise<Finished | undefined> {
    const now = () => this.deps.clock.now(delivery.account_id);
    const body = delivery.mock_body ?? delivery.event_body;
    const base = delivery.target_url ?? delivery.subscription_url;
    const startedAt = now();
    if (body === null || base === null) {
      const gone = { statusCode: null, error: 'the event or its webhook no longer exists', durationMs: 0 };
      return attemptRecord(delivery, { startedAt, url: '', transmissionId: '', result: gone, updatedAt: now(), forced: 'CANCELLED' });
    }
    const url = joinReceiverUrl(base, delivery.receiver_path);
    const transmission = { transmissionId: randomUUID(), transmissionTime: isoSeconds(startedAt), webhookId: delivery.signing_webhook_id };
    const problem = receiverUrlProblem(url);
    if (problem) {
      const refused = { statusCode: null, error: problem.description, durationMs: 0 };
      return attemptRecord(delivery, { startedAt, url, transmissionId: transmission.transmissionId, result: refused, updatedAt: now() });
    }
    const key = await this.keys.current();
    const signature: Record<string, string> = {
      'PAYPAL-TRANSMISSION-ID': transmission.transmissionId,
      'PAYPAL-TRANSMISSION-TIME': transmission.transmissionTime,
      'PAYPAL-TRANSMISSION-SIG': await signTransmissionAsync(key, transmission, body),
      'PAYPAL-CERT-URL': certUrl(delivery.cert_base_url, key),
      'PAYPAL-AUTH-ALGO': AUTH_ALGO,
    };
    const result = await postDelivery(() => this.agent(), url, body, signature, signal);
    // Cut short by the stop (aborted, or refused a pool after it): the attempt is made again after a restart.
    if (this.#stopped && (signal.aborted || result.statusCode === null)) return undefined;
    return attemptRecord(delivery, { startedAt, url, transmissionId: transmission.transmissionId, result, updatedAt: now() });
  }

  /** Writes finished attempts, all that have piled up in one transaction; calls coalesce. */
  private record(): Promise<void> {
    return this.#recording.run();
  }

  private async recordPass(): Promise<void> {
    const batch = this.#finished;
    this.#finished = [];
    if (batch.length === 0) return;
    for (const { attempt } of batch) this.#recordingIds.add(attempt.delivery_id);
    try {
      const recorded = await this.deps.storage.transaction({ name: 'webhooks.record-attempts' }, (trx) => store.recordAttempts(trx, this.#owner, batch));
      if (recorded < batch.length) this.deps.log.warn({ lost: batch.length - recorded }, 'webhook attempts not recorded: the delivery was deleted, or its lease ran out and another server took it');
    } catch (error) {
      // The deliveries stay as they were and are attempted again.
      this.deps.log.error({ err: error }, 'recording webhook attempts failed');
    }
    this.#recordingIds.clear();
    for (const { attempt } of batch) {
      this.#unrecorded.delete(attempt.delivery_id);
      this.#recordedSinceRead.add(attempt.delivery_id);
    }
    // A copy queued by a claim that ran while the attempt was being recorded is stale.
    if (batch.some(({ attempt }) => this.#queuedIds.has(attempt.delivery_id))) {
      const recorded = new Set(batch.map(({ attempt }) => attempt.delivery_id));
      this.forget((delivery) => recorded.has(delivery.id));
    }
    if (batch.some(({ sequenced }) => sequenced)) this.#readWanted = true;
  }
}

/**
 * Passes of one job, one at a time: a call while a pass runs asks for another after it and gets the
 * running promise; after each pass `repeat(asked)` says whether to go round again, and `settled`
 * runs once the last one is done.
 */
class Passes {
  #running: Promise<void> | undefined;
  #asked = false;

  constructor(
    private readonly pass: () => Promise<void>,
    private readonly repeat: (asked: boolean) => boolean,
    private readonly settled: () => void = () => undefined,
  ) {}

  get running(): Promise<void> | undefined {
    return this.#running;
  }

  run(): Promise<void> {
    if (this.#running) {
      this.#asked = true;
      return this.#running;
    }
    this.#running = (async () => {
      do {
        this.#asked = false;
        await this.pass();
      } while (this.repeat(this.#asked));
    })().finally(() => {
      this.#running = undefined;
      this.settled();
    });
    return this.#running;
  }
}
