// Per-app token buckets; off (0 per second) by default for local use.

import { ServiceError } from './errors.js';

export interface RateLimiter {
  take(appId: string): void;
}

export function createRateLimiter(perSecond: number, burst: number, nowMs: () => number = Date.now): RateLimiter {
  if (perSecond <= 0) return { take: () => undefined };
  const capacity = Math.max(1, burst || perSecond);
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    take(appId) {
      const now = nowMs();
      const bucket = buckets.get(appId) ?? { tokens: capacity, at: now };
      bucket.tokens = Math.min(capacity, bucket.tokens + ((now - bucket.at) / 1000) * perSecond);
      bucket.at = now;
      if (bucket.tokens < 1) {
        buckets.set(appId, bucket);
        const retryAfter = Math.max(1, Math.ceil((1 - bucket.tokens) / perSecond));
        throw new ServiceError('RATE_LIMIT_REACHED', [], { headers: { 'retry-after': String(retryAfter) } });
      }
      bucket.tokens -= 1;
      buckets.set(appId, bucket);
    },
  };
}
