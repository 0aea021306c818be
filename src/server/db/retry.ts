// Bounded retry of a transaction that lost a race the database resolved by failing it: invisible to
// the client, which sees the second (or third) try's answer.

import type { DialectName } from './storage.js';

/**
 * PostgreSQL: serialization failure, deadlock detected, lock not available (lock_timeout).
 * A unique violation (23505) is not among them: callers that race on a key handle it themselves.
 */
const POSTGRES_RETRYABLE: ReadonlySet<string> = new Set(['40001', '40P01', '55P03']);
/**
 * PostgreSQL: a prepared statement whose columns a schema change altered (another replica migrated
 * while this one ran): feature_not_supported raised where the server revalidates a cached plan. The
 * routine's name is not translated, unlike the message. The connection prepares its statements
 * again (postgres-storage.ts).
 */
export function isStalePreparedStatement(error: unknown): boolean {
  const fields = error as { code?: unknown; routine?: unknown } | null;
  return typeof fields === 'object' && fields !== null && fields.code === '0A000' && fields.routine === 'RevalidateCachedQuery';
}
/** SQLite: another connection held the write lock past busy_timeout, or committed after this transaction's snapshot. */
const SQLITE_RETRYABLE: ReadonlySet<string> = new Set(['SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT']);

/** Whether `error` (or an error it wraps as `cause`) is one a fresh try of the transaction may not meet. */
export function isRetryableTransactionError(dialect: DialectName, error: unknown): boolean {
  const codes = dialect === 'postgres' ? POSTGRES_RETRYABLE : SQLITE_RETRYABLE;
  for (let current = error, depth = 0; current !== null && typeof current === 'object' && depth < 5; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && codes.has(code)) return true;
    if (dialect === 'postgres' && isStalePreparedStatement(current)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

export interface RetryPolicy {
  /** Tries in all, the first included. */
  tries: number;
  /** Upper bound of the first backoff, doubled per retry; each wait is a random fraction of it (full jitter). */
  baseDelayMs: number;
  sleep: (ms: number) => Promise<void>;
  random: () => number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export const DEFAULT_RETRY_POLICY: RetryPolicy = { tries: 4, baseDelayMs: 8, sleep, random: Math.random };

/**
 * Runs `attempt` until it settles with anything but a retryable error, at most `policy.tries` times;
 * the last try's error is thrown as is. Full jitter: racing transactions that failed together do not
 * try again together.
 */
export async function withTransactionRetry<T>(dialect: DialectName, attempt: () => Promise<T>, policy: RetryPolicy = DEFAULT_RETRY_POLICY): Promise<T> {
  for (let tried = 1; ; tried += 1) {
    try {
      return await attempt();
    } catch (error) {
      if (tried >= policy.tries || !isRetryableTransactionError(dialect, error)) throw error;
      await policy.sleep(policy.random() * policy.baseDelayMs * 2 ** (tried - 1));
    }
  }
}
