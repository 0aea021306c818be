// Failed client-credential attempts, limited per client id and per source address so that guessing
// in parallel is no faster than guessing one at a time.

import { ipv6Bytes } from '../core/ip-address.js';

/** How one key (a client id, a source address) is slowed down. */
export interface ThrottleRule {
  /** Failures answered without delay. */
  freeFailures: number;
  /** The spacing after the free failures, doubling with each further failure... */
  baseSpacingMs: number;
  /** ...up to this. */
  maxSpacingMs: number;
  /** An attempt that would wait longer than this is refused at once (429 with Retry-After). */
  maxWaitMs: number;
  /** Failures are forgotten after this long without one. */
  forgetAfterMs: number;
}

/** Per client id: 5 free failures, then 100 ms doubling to 2 s between attempts, at most 4 s of waiting. */
export const CLIENT_ID_RULE: ThrottleRule = { freeFailures: 5, baseSpacingMs: 100, maxSpacingMs: 2_000, maxWaitMs: 4_000, forgetAfterMs: 15 * 60_000 };
/** Per source address, across client ids: the same after 50 free failures. */
export const ADDRESS_RULE: ThrottleRule = { ...CLIENT_ID_RULE, freeFailures: 50 };

interface Entry {
  failures: number;
  /** Attempts admitted and not yet judged: counted as failures ahead of the next one. */
  inFlight: number;
  /** When the last admitted attempt may run (epoch ms); the next one is spaced after it. */
  lastSlot: number;
  lastActivity: number;
}

/** What an admitted attempt turned out to be: a wrong secret, the right one, or neither (no check made). */
export type Outcome = 'failure' | 'success' | 'neutral';

export type Admission = { admitted: true; waitMs: number; release: (outcome: Outcome, nowMs: number) => void } | { admitted: false; retryAfterMs: number };

/**
 * One limiter per kind of key. Each attempt past the free failures reserves a slot spaced after the
 * previous attempt's slot by the delay a serial guesser would have waited at that count, so a burst
 * of parallel attempts is answered one slot at a time; attempts that would queue past maxWaitMs are
 * refused without their secret being checked. Time is passed in, so tests need no clock.
 */
export class FailureLimiter {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly rule: ThrottleRule,
    private readonly capacity = 10_000,
  ) {}

  spacingAfter(failures: number): number {
    if (failures < this.rule.freeFailures) return 0;
    return Math.min(this.rule.maxSpacingMs, this.rule.baseSpacingMs * 2 ** Math.min(30, failures - this.rule.freeFailures));
  }

  /** The slot an attempt would get now (without taking it). */
  plan(key: string, nowMs: number): { slot: number } | { retryAfterMs: number } {
    const entry = this.live(key, nowMs);
    if (!entry) return { slot: nowMs };
    const slot = Math.max(nowMs, entry.lastSlot) + this.spacingAfter(entry.failures + entry.inFlight);
    if (slot - nowMs > this.rule.maxWaitMs) return { retryAfterMs: slot - nowMs - this.rule.maxWaitMs };
    return { slot };
  }

  /** Takes the slot `plan` gave; the caller reports the outcome through the returned function. */
  take(key: string, slot: number, nowMs: number): (outcome: Outcome, atMs: number) => void {
    const entry = this.live(key, nowMs) ?? { failures: 0, inFlight: 0, lastSlot: 0, lastActivity: nowMs };
    entry.inFlight += 1;
    entry.lastSlot = Math.max(entry.lastSlot, slot);
    entry.lastActivity = nowMs;
    this.store(key, entry);
    let released = false;
    return (outcome, atMs) => {
      if (released) return;
      released = true;
      entry.inFlight -= 1;
      entry.lastActivity = atMs;
      if (outcome === 'failure') entry.failures += 1;
      else if (outcome === 'success') {
        entry.failures = 0;
        entry.lastSlot = Math.min(entry.lastSlot, atMs);
      }
      this.store(key, entry);
    };
  }

  private live(key: string, nowMs: number): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry && entry.inFlight === 0 && nowMs - entry.lastActivity > this.rule.forgetAfterMs) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  /** Most recently touched last, so a full map drops the longest-quiet key, never one under attack. */
  private store(key: string, entry: Entry): void {
    this.entries.delete(key);
    if (entry.failures === 0 && entry.inFlight === 0) return;
    this.entries.set(key, entry);
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }
}

/**
 * The source an address is counted under: an IPv4 address as it is (also when IPv4-mapped), an IPv6
 * address by its /64, the block one host is usually given, so hopping addresses inside it is no help.
 */
export function sourceKey(address: string): string {
  const bytes = ipv6Bytes(address);
  if (!bytes) return address;
  const mapped = bytes.slice(0, 10).every((byte) => byte === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  if (mapped) return bytes.slice(12).join('.');
  const groups = [0, 2, 4, 6].map((at) => (((bytes[at] ?? 0) << 8) | (bytes[at + 1] ?? 0)).toString(16));
  return `${groups.join(':')}::/64`;
}

/** Both limits at once: an attempt runs only when the client id and the source address both admit it. */
export class CredentialThrottle {
  private readonly byClient: FailureLimiter;
  private readonly byAddress: FailureLimiter;

  constructor(clientRule: ThrottleRule = CLIENT_ID_RULE, addressRule: ThrottleRule = ADDRESS_RULE) {
    this.byClient = new FailureLimiter(clientRule);
    this.byAddress = new FailureLimiter(addressRule);
  }

  admit(clientId: string, address: string, nowMs: number): Admission {
    const client = this.byClient.plan(clientId, nowMs);
    const source = this.byAddress.plan(sourceKey(address), nowMs);
    if ('retryAfterMs' in client || 'retryAfterMs' in source) {
      return { admitted: false, retryAfterMs: Math.max('retryAfterMs' in client ? client.retryAfterMs : 0, 'retryAfterMs' in source ? source.retryAfterMs : 0) };
    }
    const slot = Math.max(client.slot, source.slot);
    const releaseClient = this.byClient.take(clientId, slot, nowMs);
    const releaseAddress = this.byAddress.take(sourceKey(address), slot, nowMs);
    return {
      admitted: true,
      waitMs: slot - nowMs,
      release: (outcome, atMs) => {
        releaseClient(outcome, atMs);
        // A success proves the client's secret, not the address's innocence: only failures count there.
        releaseAddress(outcome === 'success' ? 'neutral' : outcome, atMs);
      },
    };
  }
}
