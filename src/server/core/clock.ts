// One injectable clock: real time (or a test's time source) plus a per-account offset.

export interface Clock {
  /** The current time on an account's clock. */
  now(accountId: string): Date;
  /** The current time with no account offset (server-wide housekeeping). */
  systemNow(): Date;
  offsetMs(accountId: string): number;
  setOffset(accountId: string, offsetMs: number): void;
  forget(accountId: string): void;
}

export function createClock(source: () => number = Date.now): Clock {
  const offsets = new Map<string, number>();
  return {
    now: (accountId) => new Date(source() + (offsets.get(accountId) ?? 0)),
    systemNow: () => new Date(source()),
    offsetMs: (accountId) => offsets.get(accountId) ?? 0,
    setOffset: (accountId, offsetMs) => {
      offsets.set(accountId, offsetMs);
    },
    forget: (accountId) => {
      offsets.delete(accountId);
    },
  };
}

/** Timestamps in storage and on the wire: UTC, second precision, `Z` (sortable as text). */
export function isoSeconds(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Storage timestamps that must order events within a second keep milliseconds. */
export function isoMillis(date: Date): string {
  return date.toISOString();
}

export function addSeconds(date: Date, seconds: number): Date {
  return new Date(date.getTime() + seconds * 1000);
}
