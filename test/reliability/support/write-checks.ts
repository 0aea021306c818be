// Checks a journal of writes (see mixed-load.ts) against a server and its database (a SQLite file
// or a PostgreSQL URL): acknowledged writes are there with their amounts, lost ones resent with
// their request id take effect once, and the database holds exactly the answered effects.

import { isDeepStrictEqual } from 'node:util';
import { inspect, jsonColumn, type DbInspector } from './db-inspect.js';
import { mapConcurrent, type Answer, type LoadClient } from './http.js';
import { usdValue, type WriteKind, type WriteRecord } from './mixed-load.js';

/** What an answered write did: the resource it made or changed, and its amount. */
export interface Effect {
  kind: WriteKind;
  /** The id the answer named (order, authorization, capture, refund, invoice, payment, batch, item). */
  id: string | undefined;
  parent: string | undefined;
  cents: number | undefined;
  requestId: string;
}

/** The effect a 2xx answer to `record` reports. */
export function effectOf(record: WriteRecord, response: any): Effect {
  const base = { kind: record.kind, parent: record.parent, cents: record.cents, requestId: record.requestId };
  switch (record.kind) {
    case 'order.create':
    case 'authorization.capture':
    case 'capture.refund':
    case 'invoice.create':
    case 'authorization.void':
      return { ...base, id: response?.id };
    case 'order.authorize':
      return { ...base, id: response?.purchase_units?.[0]?.payments?.authorizations?.[0]?.id };
    case 'invoice.payment':
      return { ...base, id: response?.payment_id };
    case 'invoice.refund':
      return { ...base, id: response?.refund_id };
    case 'payout.create':
      return { ...base, id: response?.batch_header?.payout_batch_id };
    case 'payout-item.cancel':
      return { ...base, id: response?.payout_item_id };
    case 'invoice.send':
    case 'balance.top-up':
      return { ...base, id: record.parent };
  }
}

/** Why a GET does not show an acknowledged write (undefined: it does). */
async function missingProblem(client: LoadClient, token: string, effect: Effect): Promise<string | undefined> {
  const get = (path: string) => client.must('GET', path, { token });
  const amountIs = (answer: Answer, value: unknown, what: string) =>
    answer.status !== 200 ? `${what}: GET answered ${answer.status}` : value === usdValue(effect.cents ?? -1) ? undefined : `${what}: amount ${String(value)}, acknowledged ${usdValue(effect.cents ?? 0)}`;
  switch (effect.kind) {
    case 'order.create': {
      const order = await get(`/v2/checkout/orders/${effect.id}`);
      return amountIs(order, order.body?.purchase_units?.[0]?.amount?.value, `order ${effect.id}`);
    }
    case 'order.authorize': {
      const auth = await get(`/v2/payments/authorizations/${effect.id}`);
      return amountIs(auth, auth.body?.amount?.value, `authorization ${effect.id}`);
    }
    case 'authorization.capture': {
      const capture = await get(`/v2/payments/captures/${effect.id}`);
      const problem = amountIs(capture, capture.body?.amount?.value, `capture ${effect.id}`);
      if (problem) return problem;
      return capture.body?.supplementary_data?.related_ids?.authorization_id === undefined ||
        capture.body.supplementary_data.related_ids.authorization_id === effect.parent
        ? undefined
        : `capture ${effect.id} belongs to ${capture.body.supplementary_data.related_ids.authorization_id}, not ${effect.parent}`;
    }
    case 'capture.refund': {
      const refund = await get(`/v2/payments/refunds/${effect.id}`);
      return amountIs(refund, refund.body?.amount?.value, `refund ${effect.id}`);
    }
    case 'authorization.void': {
      const auth = await get(`/v2/payments/authorizations/${effect.parent}`);
      return auth.body?.status === 'VOIDED' ? undefined : `authorization ${effect.parent} is ${auth.status} ${auth.body?.status}, not VOIDED`;
    }
    case 'invoice.create': {
      const invoice = await get(`/v2/invoicing/invoices/${effect.id}`);
      return amountIs(invoice, invoice.body?.amount?.value, `invoice ${effect.id}`);
    }
    case 'invoice.send': {
      const invoice = await get(`/v2/invoicing/invoices/${effect.parent}`);
      return invoice.status === 200 && invoice.body?.status !== 'DRAFT' ? undefined : `invoice ${effect.parent} was sent but is ${invoice.body?.status}`;
    }
    case 'invoice.payment':
    case 'invoice.refund': {
      const invoice = await get(`/v2/invoicing/invoices/${effect.parent}`);
      const list = effect.kind === 'invoice.payment' ? invoice.body?.payments?.transactions : invoice.body?.refunds?.transactions;
      const idField = effect.kind === 'invoice.payment' ? 'payment_id' : 'refund_id';
      const found = (list as Array<Record<string, any>> | undefined)?.find((entry) => entry[idField] === effect.id);
      if (!found) return `invoice ${effect.parent} has no ${idField} ${effect.id}`;
      return found.amount?.value === usdValue(effect.cents ?? -1) ? undefined : `invoice ${effect.parent} ${idField} ${effect.id}: amount ${found.amount?.value}`;
    }
    case 'payout.create': {
      const batch = await get(`/v1/payments/payouts/${effect.id}`);
      return amountIs(batch, batch.body?.batch_header?.amount?.value, `payout batch ${effect.id}`);
    }
    case 'payout-item.cancel': {
      const item = await get(`/v1/payments/payouts-item/${effect.id}`);
      return item.body?.transaction_status === 'RETURNED' ? undefined : `payout item ${effect.id} is ${item.body?.transaction_status}, not RETURNED`;
    }
    case 'balance.top-up':
      return undefined; // seen in the database: its movement (exactlyOnceProblems counts them)
  }
}

/** Each acknowledged write, read back over the API; returns the problems (empty: all present). */
export async function verifyAcknowledged(client: LoadClient, token: string, effects: readonly Effect[]): Promise<string[]> {
  const problems = await mapConcurrent(effects, 8, (effect) => missingProblem(client, token, effect));
  return problems.filter((problem): problem is string => problem !== undefined);
}

export interface Resent {
  record: WriteRecord;
  first: Answer;
  second: Answer;
  /** The two answers agree (status aside from a create's 201-then-200 replay; bodies but for 4xx debug ids). */
  same: boolean;
}

/** Drops what differs between two refusals of the same request (the debug id). */
const comparable = (answer: Answer): unknown => {
  if (answer.status < 400 || typeof answer.body !== 'object' || answer.body === null) return answer.body;
  const { debug_id: _debugId, ...rest } = answer.body as Record<string, unknown>;
  return rest;
};

/**
 * Resends a lost write twice, one after the other, with its request id, method, path and body.
 * Order creation answers 201 when it creates and 200 when it replays (the orders API's rule), so
 * for it a 201 followed by a 200 counts as the same answer.
 */
export async function resendTwice(client: LoadClient, token: string, record: WriteRecord): Promise<Resent> {
  const send = () => client.must(record.method, record.path, { token, headers: record.headers, ...(record.body !== undefined ? { body: record.body } : {}) });
  const first = await send();
  const second = await send();
  const statusesAgree = first.status === second.status || (record.kind.startsWith('order.') && first.status === 201 && second.status === 200);
  return { record, first, second, same: statusesAgree && isDeepStrictEqual(comparable(first), comparable(second)) };
}

/** Request ids the server has stored an answer for (committed), among `requestIds`. `db`: a SQLite file or a postgres:// URL. */
export async function committedRequestIds(db: string, accountId: string, requestIds: readonly string[]): Promise<Set<string>> {
  return inspect(db, async (inspector) => {
    const committed = new Set<string>();
    for (const id of requestIds) {
      const found = await inspector.column('SELECT request_key FROM idempotency_keys WHERE account_id = ? AND request_key = ?', accountId, id);
      if (found.length > 0) committed.add(id);
    }
    return committed;
  });
}

function compareSets(what: string, stored: Iterable<string>, answered: Iterable<string | undefined>, problems: string[]): void {
  const storedSet = new Set(stored);
  const answeredSet = new Set([...answered].filter((id): id is string => id !== undefined));
  const extra = [...storedSet].filter((id) => !answeredSet.has(id));
  const missing = [...answeredSet].filter((id) => !storedSet.has(id));
  if (extra.length > 0) problems.push(`${what}: ${extra.length} stored that no answer named (double or phantom effects): ${extra.slice(0, 5).join(', ')}`);
  if (missing.length > 0) problems.push(`${what}: ${missing.length} answered but not stored: ${missing.slice(0, 5).join(', ')}`);
}

/**
 * The account's rows against the answered effects (acknowledged, or resent with a 2xx): every id
 * stored was named by exactly the answers, captured and refunded sums agree, one TOP_UP movement
 * per top-up. Run once nothing else writes for the account. `db`: a SQLite file or a postgres:// URL.
 */
export async function exactlyOnceProblems(db: string, accountId: string, effects: readonly Effect[]): Promise<string[]> {
  return inspect(db, (inspector) => exactlyOnceProblemsIn(inspector, accountId, effects));
}

async function exactlyOnceProblemsIn(db: DbInspector, accountId: string, effects: readonly Effect[]): Promise<string[]> {
  const problems: string[] = [];
  const of = (kind: WriteKind) => effects.filter((effect) => effect.kind === kind);
  const ids = (query: string) => db.column<string>(query, accountId);
  compareSets('orders', await ids('SELECT id FROM orders WHERE account_id = ?'), of('order.create').map((e) => e.id), problems);
  compareSets('authorizations', await ids('SELECT id FROM authorizations WHERE account_id = ?'), of('order.authorize').map((e) => e.id), problems);
  compareSets('voided authorizations', await ids("SELECT id FROM authorizations WHERE account_id = ? AND status = 'VOIDED'"), of('authorization.void').map((e) => e.parent), problems);
  compareSets('captures', await ids('SELECT id FROM captures WHERE account_id = ?'), of('authorization.capture').map((e) => e.id), problems);
  compareSets('refunds', await ids('SELECT id FROM refunds WHERE account_id = ?'), of('capture.refund').map((e) => e.id), problems);
  compareSets('invoices', await ids('SELECT id FROM invoices WHERE account_id = ?'), of('invoice.create').map((e) => e.id), problems);
  compareSets('sent invoices', await ids("SELECT id FROM invoices WHERE account_id = ? AND status <> 'DRAFT'"), of('invoice.send').map((e) => e.parent), problems);
  compareSets('payout batches', await ids('SELECT id FROM payout_batches WHERE account_id = ?'), of('payout.create').map((e) => e.id), problems);
  compareSets('returned payout items', await ids("SELECT id FROM payout_items WHERE account_id = ? AND status = 'RETURNED'"), of('payout-item.cancel').map((e) => e.id), problems);

  const sums = (kind: WriteKind) => {
    const total = new Map<string, number>();
    for (const effect of of(kind)) if (effect.parent) total.set(effect.parent, (total.get(effect.parent) ?? 0) + (effect.cents ?? 0));
    return total;
  };
  const captured = sums('authorization.capture');
  for (const row of await db.all<{ id: string; captured_minor: number }>('SELECT id, captured_minor FROM authorizations WHERE account_id = ?', accountId)) {
    if (row.captured_minor !== (captured.get(row.id) ?? 0)) problems.push(`authorization ${row.id}: captured ${row.captured_minor}, answered captures ${captured.get(row.id) ?? 0}`);
  }
  const refunded = sums('capture.refund');
  for (const row of await db.all<{ id: string; refunded_minor: number }>('SELECT id, refunded_minor FROM captures WHERE account_id = ?', accountId)) {
    if (row.refunded_minor !== (refunded.get(row.id) ?? 0)) problems.push(`capture ${row.id}: refunded ${row.refunded_minor}, answered refunds ${refunded.get(row.id) ?? 0}`);
  }
  const paid = sums('invoice.payment');
  const invoiceRefunds = sums('invoice.refund');
  const payments = new Map<string, Set<string>>();
  for (const effect of [...of('invoice.payment'), ...of('invoice.refund')]) {
    const key = `${effect.kind}:${effect.parent}`;
    payments.set(key, (payments.get(key) ?? new Set()).add(effect.id ?? '?'));
  }
  const invoiceRows = await db.all<{ id: string; paid_minor: number; refunded_minor: number; transactions: unknown }>(
    'SELECT id, paid_minor, refunded_minor, transactions FROM invoices WHERE account_id = ?',
    accountId,
  );
  for (const row of invoiceRows) {
    if (row.paid_minor !== (paid.get(row.id) ?? 0)) problems.push(`invoice ${row.id}: paid ${row.paid_minor}, answered payments ${paid.get(row.id) ?? 0}`);
    if (row.refunded_minor !== (invoiceRefunds.get(row.id) ?? 0)) problems.push(`invoice ${row.id}: refunded ${row.refunded_minor}, answered refunds ${invoiceRefunds.get(row.id) ?? 0}`);
    const stored = jsonColumn<{ payments: Array<{ payment_id: string }>; refunds: Array<{ refund_id: string }> }>(row.transactions);
    compareSets(`invoice ${row.id} payments`, stored.payments.map((p) => p.payment_id), payments.get(`invoice.payment:${row.id}`) ?? [], problems);
    compareSets(`invoice ${row.id} refunds`, stored.refunds.map((r) => r.refund_id), payments.get(`invoice.refund:${row.id}`) ?? [], problems);
  }
  const [topUps] = await db.column<number>("SELECT COUNT(*) FROM balance_movements WHERE account_id = ? AND kind = 'TOP_UP'", accountId);
  if (topUps !== of('balance.top-up').length) problems.push(`top-ups: ${topUps} movements for ${of('balance.top-up').length} answered top-ups`);
  return problems;
}
