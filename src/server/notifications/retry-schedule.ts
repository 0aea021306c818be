// When a failed delivery is tried again: 25 attempts over exactly 3 days on the account's clock.

/**
 * Seconds to wait after attempt N (index N-1) before attempt N+1. Attempt 1 is made at once; the
 * 24 waits add up to 259,200 s = 72 h, so attempt 25, the last, is due 3 days after the first.
 */
export const RETRY_DELAYS_SECONDS: readonly number[] = [
  60, // 1 min      -> attempt 2 at 1 min
  240, // 4 min     -> attempt 3 at 5 min
  600, // 10 min    -> attempt 4 at 15 min
  900, // 15 min    -> attempt 5 at 30 min
  1_800, // 30 min  -> attempt 6 at 1 h
  3_600, // 1 h     -> attempt 7 at 2 h
  3_600, //         -> attempt 8 at 3 h
  3_600, //         -> attempt 9 at 4 h
  7_200, // 2 h     -> attempt 10 at 6 h
  7_200, //         -> attempt 11 at 8 h
  7_200, //         -> attempt 12 at 10 h
  7_200, //         -> attempt 13 at 12 h
  10_800, // 3 h    -> attempt 14 at 15 h
  10_800, //        -> attempt 15 at 18 h
  10_800, //        -> attempt 16 at 21 h
  10_800, //        -> attempt 17 at 24 h
  21_600, // 6 h    -> attempt 18 at 30 h
  21_600, //        -> attempt 19 at 36 h
  21_600, //        -> attempt 20 at 42 h
  21_600, //        -> attempt 21 at 48 h
  21_600, //        -> attempt 22 at 54 h
  21_600, //        -> attempt 23 at 60 h
  21_600, //        -> attempt 24 at 66 h
  21_600, //        -> attempt 25 at 72 h
];

export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;

/** A Retry-After (429) is honoured within these bounds, so a receiver cannot stall or flood us. */
export const RETRY_AFTER_MIN_SECONDS = 1;
export const RETRY_AFTER_MAX_SECONDS = 86_400;

/** The wait after attempt `attemptNumber` (1-based), or undefined when it was the last. */
export function retryDelaySeconds(attemptNumber: number): number | undefined {
  return RETRY_DELAYS_SECONDS[attemptNumber - 1];
}

/** A Retry-After header (seconds or an HTTP date) as seconds, clamped; undefined when absent or unreadable. */
export function retryAfterSeconds(header: string | undefined, realNowMs: number): number | undefined {
  if (header === undefined) return undefined;
  const text = header.trim();
  let seconds: number;
  if (/^\d{1,10}$/.test(text)) seconds = Number(text);
  else {
    const at = Date.parse(text);
    if (Number.isNaN(at)) return undefined;
    seconds = Math.ceil((at - realNowMs) / 1000);
  }
  return Math.min(RETRY_AFTER_MAX_SECONDS, Math.max(RETRY_AFTER_MIN_SECONDS, seconds));
}
