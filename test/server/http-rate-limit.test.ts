// Rate limiting: 429 RATE_LIMIT_REACHED with Retry-After once the burst is spent.

import { describe, expect, it } from 'vitest';
import { startTestServer } from '../helpers/server.js';

describe('rate limiting', () => {
  it('answers 429 RATE_LIMIT_REACHED with Retry-After past the burst', async () => {
    const t = await startTestServer({ memory: true, config: { rateLimitPerSecond: 1, rateLimitBurst: 3 } });
    try {
      const statuses: number[] = [];
      let retryAfter: string | null = null;
      for (let i = 0; i < 5; i += 1) {
        const result = await t.request('GET', '/_payctl/clock');
        statuses.push(result.status);
        if (result.status === 429) {
          retryAfter = result.headers.get('retry-after');
          expect(result.body.name).toBe('RATE_LIMIT_REACHED');
        }
      }
      expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
      expect(statuses.slice(3)).toContain(429);
      expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    } finally {
      await t.close();
    }
  });
});
