// Which "now" relative times are measured from. A payctl server keeps a clock per merchant account
// that `sandbox clock` moves forward; a dispute's due date is on that clock, so "in 10d" must count
// from the account's now, not this machine's. Servers without the control plane are on wall time.

import type { ApiClient } from './api/client.js';
import { getClock } from './api/sandbox.js';

export interface ClockReading {
  /** Milliseconds since the epoch on that clock. */
  now: number;
  /** Printed beside relative times: which clock they count on. */
  label: 'account clock' | 'wall clock';
}

export function wallClock(): ClockReading {
  return { now: Date.now(), label: 'wall clock' };
}

/** The account's clock from GET /_payctl/clock; the wall clock when the server has none (or says no). */
export async function accountClock(client: ApiClient): Promise<ClockReading> {
  try {
    const clock = await getClock(client);
    const now = Date.parse(clock.now);
    return Number.isFinite(now) ? { now, label: 'account clock' } : wallClock();
  } catch {
    return wallClock();
  }
}
