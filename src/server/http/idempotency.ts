// One transaction per mutating request: claim the request id, change state, store the answer.

import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { addSeconds, isoMillis } from '../core/clock.js';
import type { ServerDeps, ServiceContext } from '../core/deps.js';
import { findRow, insertRow } from '../db/prepared.js';
import type { Queryable } from '../db/schema.js';
import { callerOf } from './auth.js';
import { serviceError } from './errors.js';
import { requestIdOf } from './headers.js';
import { requestBaseUrl } from './links.js';

export interface StoredResponse {
  status: number;
  body: unknown;
}

export interface MutationResult extends StoredResponse {
  replayed: boolean;
}

/** How long request ids are remembered, per family of operations. */
export const RETENTION_SECONDS = {
  payments: 45 * 86_400,
  orders: 6 * 3_600,
  payouts: 30 * 86_400,
  default: 45 * 86_400,
} as const;

export interface MutationOptions {
  /** A stable name of the operation, e.g. `payments.authorizations.capture`. */
  operation: string;
  retentionSeconds?: number;
  /** A value standing for the request's content when the body is not JSON (multipart uploads). */
  fingerprint?: unknown;
}

/** Text emitted as it is by canonicalJson (brackets, commas, keys), beside the values still to render. */
class Literal {
  constructor(readonly text: string) {}
}

const byKey = ([a]: [string, unknown], [b]: [string, unknown]): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * JSON with sorted keys, so that the same content always hashes the same. Iterative (a stack of
 * what is left to write), so no nesting can overflow the call stack: bodies are depth-limited at
 * the edge, but a fingerprint or params could come from elsewhere.
 */
export function canonicalJson(root: unknown): string {
  const out: string[] = [];
  const todo: unknown[] = [root];
  while (todo.length > 0) {
    const value = todo.pop();
    if (value instanceof Literal) {
      out.push(value.text);
    } else if (Array.isArray(value)) {
      out.push('[');
      todo.push(new Literal(']'));
      for (let index = value.length - 1; index >= 0; index -= 1) {
        todo.push(value[index]);
        if (index > 0) todo.push(new Literal(','));
      }
    } else if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value as Record<string, unknown>)
        .filter(([, item]) => item !== undefined)
        .sort(byKey);
      out.push('{');
      todo.push(new Literal('}'));
      for (let index = entries.length - 1; index >= 0; index -= 1) {
        const [key, item] = entries[index] as [string, unknown];
        todo.push(item, new Literal(`${index > 0 ? ',' : ''}${JSON.stringify(key)}:`));
      }
    } else {
      out.push(JSON.stringify(value) ?? 'null');
    }
  }
  return out.join('');
}

export function requestHash(request: FastifyRequest, fingerprint?: unknown): string {
  const content = canonicalJson({ params: request.params ?? {}, body: fingerprint ?? request.body ?? {} });
  return createHash('sha256').update(content).digest('hex');
}

export function serviceContext(deps: ServerDeps, request: FastifyRequest, db: Queryable = deps.db): ServiceContext {
  const accountId = callerOf(request).accountId;
  return { db, deps, accountId, now: deps.clock.now(accountId), baseUrl: requestBaseUrl(deps, request) };
}

/**
 * Runs `work` in one transaction with the request-id claim and the stored answer. A retry with
 * the same id and content replays the stored answer; the same id with other content is refused.
 * Work that throws rolls back everything, so a refused request leaves nothing behind.
 */
export async function runMutation(
  deps: ServerDeps,
  request: FastifyRequest,
  options: MutationOptions,
  work: (ctx: ServiceContext) => Promise<StoredResponse>,
): Promise<MutationResult> {
  const key = requestIdOf(request);
  const hash = key === undefined ? '' : requestHash(request, options.fingerprint);
  return deps.storage.transaction({ name: 'request', batch: true }, async (trx) => {
    const ctx = serviceContext(deps, request, trx);
    if (key !== undefined) {
      const previous = await findRow(trx, 'idempotency_keys', {
        account_id: ctx.accountId,
        operation: options.operation,
        request_key: key,
      });
      if (previous && previous.expires_at > isoMillis(ctx.now)) {
        if (previous.request_hash !== hash) {
          throw serviceError(
            'UNPROCESSABLE_ENTITY',
            'DUPLICATE_REQUEST_ID',
            'This request id was already used for a request with different content; send a new id for a new request.',
            { field: 'Service-Request-Id', value: key, location: 'header' },
          );
        }
        return { status: Number(previous.status_code), body: JSON.parse(previous.response_body) as unknown, replayed: true };
      }
      if (previous) {
        await trx
          .deleteFrom('idempotency_keys')
          .where('account_id', '=', ctx.accountId)
          .where('operation', '=', options.operation)
          .where('request_key', '=', key)
          .execute();
      }
    }
    const result = await work(ctx);
    if (key !== undefined) {
      await insertRow(trx, 'idempotency_keys', {
        account_id: ctx.accountId,
        operation: options.operation,
        request_key: key,
        request_hash: hash,
        status_code: BigInt(result.status),
        response_body: JSON.stringify(result.body ?? null),
        created_at: isoMillis(ctx.now),
        expires_at: isoMillis(addSeconds(ctx.now, options.retentionSeconds ?? RETENTION_SECONDS.default)),
      });
    }
    return { ...result, replayed: false };
  });
}

export function sendResult(reply: FastifyReply, result: StoredResponse): FastifyReply {
  reply.code(result.status);
  if (result.body === undefined || result.status === 204) return reply.send();
  return reply.send(result.body);
}

/** The delete of an account's request ids past their retention (found by idempotency_keys_account_expiry). */
export const expiredRequestIds = (db: Queryable, accountId: string, now: Date) =>
  db.deleteFrom('idempotency_keys').where('account_id', '=', accountId).where('expires_at', '<=', isoMillis(now));

/** How long a server may purge before another may take the job over (it takes milliseconds). */
const PURGE_LEASE_MS = 60_000;

/** Drops request ids past their retention on each account's clock; one server at a time does it. */
export async function purgeExpiredRequestIds(deps: ServerDeps): Promise<void> {
  await deps.storage.withJobLease('purge-request-ids', PURGE_LEASE_MS, async () => {
    const accounts = await deps.db.selectFrom('accounts').select('id').execute();
    for (const { id } of accounts) await expiredRequestIds(deps.db, id, deps.clock.now(id)).execute();
  });
}
