// One transaction per mutating request: claim the request id, change state, store the answer.

import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { addSeconds, isoMillis } from '../core/clock.js';
import type { ServerDeps, ServiceContext } from '../core/deps.js';
import { prepared } from '../db/prepared.js';
import { sendAhead, writeBeforeCommit } from '../db/storage.js';
import type { Queryable } from '../db/schema.js';
import { sendTokenCheck, type TokenCheck } from '../oauth/api.js';
import { callerOf } from './auth.js';
import { CallerChanged } from './token-check.js';
import { serviceError } from './errors.js';
import { requestIdOf } from './headers.js';
import { requestBaseUrl } from './links.js';

/** A mutation's answer; a service names its body's type (`StoredResponse<Capture>`). */
export interface StoredResponse<Body = unknown> {
  status: number;
  body: Body;
}

export interface MutationResult extends StoredResponse {
  replayed: boolean;
  /** The body as JSON, when written for the stored answer: the reply sends it as it is (`sendResult`). */
  bodyText?: string;
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
  const { accountId, account } = callerOf(request);
  return { db, deps, accountId, now: deps.clock.now(accountId), baseUrl: requestBaseUrl(deps, request), account };
}

type RequestIdKey = {
  accountId: string;
  operation: string;
  requestKey: string;
};

type Claim = RequestIdKey & {
  hash: string;
  createdAt: string;
  expiresAt: string;
};

// The claim, the winner's read and the answer: prepared (db/prepared.ts), they are the hot path of
// every keyed request. A claim is a row without an answer yet (status_code 0, never seen outside
// its transaction: the answer is written in the same transaction before it commits).
const claimStatement = prepared<Claim & { unanswered: bigint; noBody: string }, { request_key: string }>((db, arg) =>
  db
    .insertInto('idempotency_keys')
    .values({
      account_id: arg('accountId'),
      operation: arg('operation'),
      request_key: arg('requestKey'),
      request_hash: arg('hash'),
      status_code: arg('unanswered'),
      response_body: arg('noBody'),
      created_at: arg('createdAt'),
      expires_at: arg('expiresAt'),
    })
    .onConflict((conflict) => conflict.columns(['account_id', 'operation', 'request_key']).doNothing())
    .returning('request_key'),
);

const winnerStatement = prepared<RequestIdKey, { request_hash: string; status_code: bigint; response_body: string; expires_at: string }>((db, arg) =>
  db
    .selectFrom('idempotency_keys')
    .select(['request_hash', 'status_code', 'response_body', 'expires_at'])
    .where('account_id', '=', arg('accountId'))
    .where('operation', '=', arg('operation'))
    .where('request_key', '=', arg('requestKey'))
    .forUpdate(),
);

/** Takes over a claim past its retention (not yet purged): conditional, so only one request can. */
const reclaimStatement = prepared<Claim & { unanswered: bigint; noBody: string; now: string }>((db, arg) =>
  db
    .updateTable('idempotency_keys')
    .set({
      request_hash: arg('hash'),
      status_code: arg('unanswered'),
      response_body: arg('noBody'),
      created_at: arg('createdAt'),
      expires_at: arg('expiresAt'),
    })
    .where('account_id', '=', arg('accountId'))
    .where('operation', '=', arg('operation'))
    .where('request_key', '=', arg('requestKey'))
    .where('expires_at', '<=', arg('now')),
);

const answerStatement = prepared<RequestIdKey & { status: bigint; body: string }>((db, arg) =>
  db
    .updateTable('idempotency_keys')
    .set({ status_code: arg('status'), response_body: arg('body') })
    .where('account_id', '=', arg('accountId'))
    .where('operation', '=', arg('operation'))
    .where('request_key', '=', arg('requestKey')),
);

async function affected(pending: ReturnType<typeof reclaimStatement.run>): Promise<bigint> {
  const result = pending instanceof Promise ? await pending : pending;
  return result.numAffectedRows ?? 0n;
}

/**
 * What to do after the claim's insert: nothing (the claim is this request's), or replay the winner's
 * stored answer. A claim is a unique key: a concurrent request with the same id waits on it
 * (PostgreSQL: on the index entry) until this transaction commits, then sees the answer; if this
 * transaction rolls back, its claim goes with it and the waiter claims in turn.
 */
async function settleClaim(db: Queryable, claim: Claim, now: string, inserted: { rows: unknown[] }): Promise<StoredResponse | undefined> {
  const args = { ...claim, unanswered: 0n, noBody: '' };
  let won = inserted.rows.length > 0;
  for (let attempt = 0; attempt < 100; attempt += 1) {
    if (won) return undefined;
    const winner = await winnerStatement.first(db, claim);
    if (winner === undefined) {
      // Gone between the two statements (purged, or its transaction rolled back): claim again.
      const again = claimStatement.run(db, args);
      won = (again instanceof Promise ? await again : again).rows.length > 0;
      continue;
    }
    if (winner.expires_at <= now) {
      if ((await affected(reclaimStatement.run(db, { ...args, now }))) === 1n) return undefined;
      won = false;
      continue;
    }
    if (winner.request_hash !== claim.hash) {
      throw serviceError(
        'UNPROCESSABLE_ENTITY',
        'DUPLICATE_REQUEST_ID',
        'This request id was already used for a request with different content; send a new id for a new request.',
        { field: 'Service-Request-Id', value: claim.requestKey, location: 'header' },
      );
    }
    return { status: Number(winner.status_code), body: JSON.parse(winner.response_body) as unknown };
  }
  throw new Error(`request id ${claim.requestKey}: no claim and no winner after 100 attempts`);
}

/** A promise's value or error, as a value: the work's outcome is held while another answer is read. */
const outcomeOf = <T>(running: Promise<T>): Promise<{ value: T } | { error: unknown }> =>
  running.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );

/** The check of a caller not confirmed yet (http/auth.ts `tokenCheckedInTransaction`), over the attempts of its transaction. */
interface PendingCheck {
  readonly check: TokenCheck;
  /** Whether the last attempt found the token as remembered. */
  passed: boolean;
}

/**
 * Runs `body` on the request's service context in `trx`. With a pending check the token is read
 * again ahead of the body's first statement (on PostgreSQL in the same round trip), in every
 * attempt, and judged before the attempt commits, whatever the body did: a token gone or changed,
 * or a clock other than the one the context was made on, rolls everything back (`CallerChanged`:
 * the route runs again on the caller read anew).
 */
async function inCheckedTransaction<T>(
  deps: ServerDeps,
  request: FastifyRequest,
  trx: Queryable,
  pending: PendingCheck | undefined,
  body: (ctx: ServiceContext) => Promise<T>,
): Promise<T> {
  if (pending === undefined) return body(serviceContext(deps, request, trx));
  // An earlier attempt's verdict does not stand for this one.
  pending.passed = false;
  const verdict = await sendTokenCheck(deps, trx, pending.check);
  const ctx = serviceContext(deps, request, trx);
  const clockOffsetMs = deps.clock.offsetMs(ctx.accountId);
  const outcome = await outcomeOf(body(ctx));
  pending.passed = await verdict(clockOffsetMs);
  if (!pending.passed) throw new CallerChanged();
  if ('error' in outcome) throw outcome.error;
  return outcome.value;
}

/** The work ran before its claim's answer came, and the claim was another request's: run it again, claim first. */
class ClaimTaken extends Error {}

/**
 * Options of a route that changes state only through `runMutation`, and answers success only from
 * it: its token may be checked inside that transaction (http/auth.ts `tokenCheckedInTransaction`).
 * Its handler may run twice (http/token-check.ts): what it does before `runMutation` must be safe to
 * repeat (a body parsed by Fastify is; a multipart stream read by the handler is not).
 */
export const MUTATION_ROUTE = { config: { tokenCheckedInTransaction: true } } as const;

/**
 * Runs `work` in one transaction with the request-id claim and the stored answer. A retry with
 * the same id and content replays the stored answer; the same id with other content is refused.
 * Work that throws rolls back everything, the claim included, so a refused request leaves nothing
 * behind.
 *
 * The claim goes to the database ahead of the work's first statement (db/storage.ts `sendAhead`:
 * on PostgreSQL in the same round trip). Its answer is read before the work's outcome counts: when
 * the request id turns out taken, the work is rolled back unseen (it has no effect outside the
 * transaction) and the request runs again with the claim answered first, to replay or refuse.
 */
export function runMutation(
  deps: ServerDeps,
  request: FastifyRequest,
  options: MutationOptions,
  work: (ctx: ServiceContext) => Promise<StoredResponse>,
): Promise<MutationResult> {
  return runMutationOnce(deps, request, options, work, false);
}

/** `runMutation`; with `claimFirst`, the claim's answer is read before the work runs. */
async function runMutationOnce(
  deps: ServerDeps,
  request: FastifyRequest,
  options: MutationOptions,
  work: (ctx: ServiceContext) => Promise<StoredResponse>,
  claimFirst: boolean,
): Promise<MutationResult> {
  const key = requestIdOf(request);
  const keyed = key === undefined ? undefined : { key, hash: requestHash(request, options.fingerprint) };
  const unconfirmed = callerOf(request).unconfirmed;
  const pending: PendingCheck | undefined = unconfirmed === undefined ? undefined : { check: unconfirmed, passed: false };
  try {
    const result = await deps.storage.transaction({ name: 'request', batch: true }, (trx) =>
      inCheckedTransaction(deps, request, trx, pending, async (ctx) =>
        keyed === undefined ? { ...(await work(ctx)), replayed: false } : claimAndWork(trx, ctx, options, keyed, work, claimFirst),
      ),
    );
    markConfirmed(request, pending);
    return result;
  } catch (error) {
    // Run again, with the check sent again: nothing of this attempt committed.
    if (error instanceof ClaimTaken) return runMutationOnce(deps, request, options, work, true);
    // Failed for a reason of its own after the token was found as remembered: the error is answered as such.
    if (!(error instanceof CallerChanged)) markConfirmed(request, pending);
    throw error;
  }
}

/** In the request's transaction: the request id's claim, the work (or the winner's answer), and the stored answer. */
async function claimAndWork(
  trx: Queryable,
  ctx: ServiceContext,
  options: MutationOptions,
  keyed: { key: string; hash: string },
  work: (ctx: ServiceContext) => Promise<StoredResponse>,
  claimFirst: boolean,
): Promise<MutationResult> {
  const claim: Claim = {
    accountId: ctx.accountId,
    operation: options.operation,
    requestKey: keyed.key,
    hash: keyed.hash,
    createdAt: isoMillis(ctx.now),
    expiresAt: isoMillis(addSeconds(ctx.now, options.retentionSeconds ?? RETENTION_SECONDS.default)),
  };
  const sent = await sendAhead(trx, claimStatement, { ...claim, unanswered: 0n, noBody: '' });
  let result: StoredResponse;
  if (sent.answered !== undefined || claimFirst) {
    const stored = await settleClaim(trx, claim, claim.createdAt, sent.answered ?? (await sent.answer()));
    if (stored) return { ...stored, replayed: true };
    result = await work(ctx);
  } else {
    const outcome = await outcomeOf(work(ctx));
    if ((await sent.answer()).rows.length === 0) throw new ClaimTaken();
    if ('error' in outcome) throw outcome.error;
    result = outcome.value;
  }
  // Nothing in the transaction reads the answer back: PostgreSQL sends it with the COMMIT.
  const bodyText = JSON.stringify(result.body ?? null);
  await writeBeforeCommit(trx, answerStatement, { ...claim, status: BigInt(result.status), body: bodyText });
  return { ...result, replayed: false, bodyText };
}

/** The caller of a request whose transaction has ended is confirmed if its last attempt found the token as remembered. */
function markConfirmed(request: FastifyRequest, pending: PendingCheck | undefined): void {
  if (pending?.passed === true && request.caller !== null) request.caller = { ...request.caller, unconfirmed: undefined };
}

export function sendResult(reply: FastifyReply, result: StoredResponse & { bodyText?: string }): FastifyReply {
  reply.code(result.status);
  if (result.body === undefined || result.status === 204) return reply.send();
  // The JSON written for the stored answer is what Fastify's serializer (JSON.stringify, no
  // response schemas here) would write again: sent as it is, with the type Fastify would give it.
  if (result.bodyText !== undefined) {
    if (!reply.hasHeader('content-type')) reply.type('application/json; charset=utf-8');
    return reply.send(result.bodyText);
  }
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
