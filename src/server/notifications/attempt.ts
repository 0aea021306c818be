// One delivery attempt: the signed POST, and what its answer means for the delivery.

import { performance } from 'node:perf_hooks';
import type { Dispatcher as HttpDispatcher } from 'undici';
import { addSeconds, isoMillis } from '../core/clock.js';
import { MAX_ATTEMPTS, retryAfterSeconds, retryDelaySeconds } from './retry-schedule.js';
import type { DeliveryStatus } from './states.js';
import type * as store from './store.js';

/**
 * undici is about a quarter of the server bundle: it loads with the first delivery instead of at
 * start-up, so `payctl serve` answers sooner and a server without webhooks never pays for it.
 */
let undiciModule: Promise<typeof import('undici')> | undefined;
export function loadUndici(): Promise<typeof import('undici')> {
  // Required from the bundle's undici file through esbuild's interop, or imported from node_modules
  // by Node: either way `default` holds the CommonJS package's exports.
  undiciModule ??= import('undici').then(
    (loaded) => (loaded as { default?: typeof import('undici') }).default ?? loaded,
  ).catch((error: unknown) => {
    // A failed load is tried again by the next attempt instead of failing every later one.
    undiciModule = undefined;
    throw error;
  });
  return undiciModule;
}

/**
 * One deadline for a whole attempt, from the connection to the end of what is read: a receiver
 * that answers at once and then drips its body a byte at a time cannot hold a slot for longer
 * (undici's headers and body timeouts restart on every byte).
 */
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** Of the answer only the status and headers matter: at most this much body is read (so the connection can be kept). */
export const ANSWER_BODY_CAP_BYTES = 4 * 1024;
const USER_AGENT = 'payctl-webhooks/1.0';

export interface PostResult {
  statusCode: number | null;
  error: string | null;
  retryAfter?: string | undefined;
  durationMs: number;
}

export interface Finished {
  attempt: store.AttemptRow;
  outcome: store.AttemptOutcome;
  /** An outbox event's delivery: recording it may release a later event for the same resource. */
  sequenced: boolean;
}

function describeError(error: unknown): string {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return (typeof code === 'string' ? `${code}: ${message}` : message).slice(0, 500);
}

/**
 * One POST, through the connection pool `agent` gives (a failure to load undici or make the pool is
 * a failed attempt, like a refused connection). The signature headers go out under their public
 * names and with a SERVICE- prefix.
 */
export async function postDelivery(
  agent: () => Promise<HttpDispatcher>,
  url: string,
  body: string,
  signature: Record<string, string>,
  signal: AbortSignal,
): Promise<PostResult> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...signature };
  for (const [name, value] of Object.entries(signature)) headers[name.replace(/^PAYPAL-/, 'SERVICE-')] = value;
  const started = performance.now();
  const deadline = attemptDeadline(signal);
  try {
    const [{ request }, dispatcher] = await Promise.all([loadUndici(), agent()]);
    const response = await request(url, {
      method: 'POST',
      headers,
      body,
      dispatcher,
      headersTimeout: ATTEMPT_TIMEOUT_MS,
      bodyTimeout: ATTEMPT_TIMEOUT_MS,
      signal: deadline.signal,
    });
    // The status is the answer: a body cut off by the cap or the deadline does not change it.
    await response.body.dump({ limit: ANSWER_BODY_CAP_BYTES, signal: deadline.signal }).catch(() => undefined);
    const retryAfter = response.headers['retry-after'];
    return {
      statusCode: response.statusCode,
      error: null,
      retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
      durationMs: Math.round(performance.now() - started),
    };
  } catch (error) {
    return { statusCode: null, error: describeError(error), durationMs: Math.round(performance.now() - started) };
  } finally {
    deadline.release();
  }
}

/**
 * A signal that aborts when `stop` does or ATTEMPT_TIMEOUT_MS after now; `release` clears the timer
 * (a timer per attempt that outlived it would pile up at hundreds of deliveries a second).
 */
function attemptDeadline(stop: AbortSignal): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  const onStop = () => controller.abort(stop.reason);
  const timer = setTimeout(() => {
    controller.abort(Object.assign(new Error(`no complete answer within ${ATTEMPT_TIMEOUT_MS / 1000} s`), { code: 'ATTEMPT_DEADLINE' }));
  }, ATTEMPT_TIMEOUT_MS);
  timer.unref();
  if (stop.aborted) onStop();
  else stop.addEventListener('abort', onStop, { once: true });
  return {
    signal: controller.signal,
    release() {
      clearTimeout(timer);
      stop.removeEventListener('abort', onStop);
    },
  };
}

export interface AttemptFacts {
  startedAt: Date;
  url: string;
  transmissionId: string;
  result: PostResult;
  updatedAt: Date;
  forced?: DeliveryStatus;
}

/** The attempt row and the delivery's next state: delivered, gone, given up, or when to try again. */
export function attemptRecord(delivery: store.DeliveryRow, facts: AttemptFacts): Finished {
  const number = Number(delivery.attempt_count) + 1;
  const { statusCode, error } = facts.result;
  let status: DeliveryStatus = 'PENDING';
  let next: string | null = null;
  if (facts.forced) status = facts.forced;
  else if (statusCode !== null && statusCode >= 200 && statusCode < 300) status = 'DELIVERED';
  else if (statusCode === 410) status = 'GONE';
  else if (number >= MAX_ATTEMPTS) status = 'FAILED';
  else {
    const honoured = statusCode === 429 ? retryAfterSeconds(facts.result.retryAfter, Date.now()) : undefined;
    next = isoMillis(addSeconds(facts.startedAt, honoured ?? retryDelaySeconds(number) ?? 0));
  }
  const code = statusCode === null ? null : BigInt(statusCode);
  return {
    attempt: {
      delivery_id: delivery.id,
      account_id: delivery.account_id,
      attempt_number: BigInt(number),
      attempt_time: isoMillis(facts.startedAt),
      url: facts.url,
      transmission_id: facts.transmissionId,
      status_code: code,
      error,
      duration_ms: BigInt(facts.result.durationMs),
    },
    sequenced: delivery.event_seq !== null,
    outcome: { status, next_attempt_at: next, last_status_code: code, last_error: error, update_time: isoMillis(facts.updatedAt) },
  };
}
