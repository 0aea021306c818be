// A mixed, bounded write load for one merchant: orders authorized and captured in parts, refunds,
// voids, invoices sent and paid (and refunded), balance top-ups and small payout batches (with an
// unclaimed item cancelled). Every write carries a fresh Service-Request-Id and is journaled with
// what it was sent and what came back: an answer (2xx, 4xx, 5xx) or a lost answer.

import { randomUUID } from 'node:crypto';
import { waitFor } from '../../helpers/wait.js';
import type { LoadClient, Outcome } from './http.js';

export type WriteKind =
  | 'order.create'
  | 'order.authorize'
  | 'authorization.capture'
  | 'authorization.void'
  | 'capture.refund'
  | 'invoice.create'
  | 'invoice.send'
  | 'invoice.payment'
  | 'invoice.refund'
  | 'balance.top-up'
  | 'payout.create'
  | 'payout-item.cancel';

export interface WriteRecord {
  seq: number;
  worker: number;
  kind: WriteKind;
  method: string;
  path: string;
  body: unknown;
  headers: Record<string, string>;
  requestId: string;
  /** The resource the write acts on (authorization, capture, invoice, item), when there is one. */
  parent?: string;
  /** The amount asked for, in cents, when the write moves money. */
  cents?: number;
  outcome: 'acknowledged' | 'refused' | 'failed' | 'lost';
  status?: number;
  response?: unknown;
  error?: string;
}

export interface MixedLoadOptions {
  client: LoadClient;
  token: string;
  /** Concurrent workers (one request in flight each). */
  workers: number;
  /** Hard bounds: the load stops at whichever comes first. */
  maxMs: number;
  maxWritesPerWorker: number;
  /** An account on the same server: payout items to it succeed (others stay unclaimed). */
  receiverPayerId: string;
  random?: () => number;
}

/** A small seeded generator (mulberry32), so that a failing round can be replayed from its seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Cents as a USD decimal string, without floating point. */
export const usdValue = (cents: number): string => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;

/** A USD decimal string ("12.3", "12.34", "12") as cents. */
export function centsOf(value: string): number {
  const match = /^(\d+)(?:\.(\d{1,2}))?$/.exec(value);
  if (!match) throw new Error(`not a USD amount: ${value}`);
  return Number(match[1]) * 100 + Number((match[2] ?? '0').padEnd(2, '0'));
}

const usd = (cents: number) => ({ currency_code: 'USD', value: usdValue(cents) });
const FULL = { prefer: 'return=representation' };
const CARD = { card: { number: '4111111111111111', expiry: '2030-12' } };

class Stop extends Error {}

export class MixedLoad {
  readonly records: WriteRecord[] = [];
  #stopped = false;
  #seq = 0;
  readonly #random: () => number;
  /** whenSent() callers: each resolved once that many writes are on their way, or the load has ended. */
  #waiters: Array<{ count: number; resolve: () => void }> = [];

  constructor(private readonly options: MixedLoadOptions) {
    this.#random = options.random ?? Math.random;
  }

  /** Workers finish the request in flight and start no other. */
  stop(): void {
    this.#stopped = true;
  }

  /**
   * Resolves as the `count`-th write is handed to the client (it and up to `workers - 1` others in
   * flight), or when the load ends short of it: true in the first case.
   */
  whenSent(count: number): Promise<boolean> {
    if (this.records.length >= count) return Promise.resolve(true);
    return new Promise((resolve) => this.#waiters.push({ count, resolve: () => resolve(this.records.length >= count) }));
  }

  #wake(ended: boolean): void {
    const due = this.#waiters.filter((waiter) => ended || this.records.length >= waiter.count);
    this.#waiters = this.#waiters.filter((waiter) => !due.includes(waiter));
    for (const waiter of due) waiter.resolve();
  }

  async run(): Promise<void> {
    try {
      await this.#run();
    } finally {
      this.#wake(true);
    }
  }

  async #run(): Promise<void> {
    const deadline = Date.now() + this.options.maxMs;
    await Promise.all(
      Array.from({ length: this.options.workers }, async (_, worker) => {
        let writes = 0;
        const budget = () => !this.#stopped && Date.now() < deadline && writes < this.options.maxWritesPerWorker;
        const lane = { worker, count: () => (writes += 1), budget };
        try {
          while (budget()) {
            const pick = this.#random();
            if (pick < 0.55) await this.paymentFlow(lane);
            else if (pick < 0.85) await this.invoiceFlow(lane);
            else await this.payoutFlow(lane);
          }
        } catch (error) {
          if (!(error instanceof Stop)) throw error;
        }
      }),
    );
  }

  private between(low: number, high: number): number {
    return low + Math.floor(this.#random() * (high - low + 1));
  }

  /** Sends one write; undefined unless acknowledged. A lost answer stops this worker. */
  private async write(
    lane: { worker: number; count: () => number; budget: () => boolean },
    kind: WriteKind,
    method: string,
    path: string,
    body: unknown,
    meta: { parent?: string; cents?: number } = {},
  ): Promise<any> {
    if (!lane.budget()) throw new Stop();
    lane.count();
    const requestId = randomUUID();
    const headers = { 'service-request-id': requestId, ...FULL };
    const record: WriteRecord = { seq: (this.#seq += 1), worker: lane.worker, kind, method, path, body, headers, requestId, ...meta, outcome: 'lost' };
    this.records.push(record);
    const answer = this.options.client.call(method, path, { body, headers, token: this.options.token });
    this.#wake(false);
    const outcome: Outcome = await answer;
    if (outcome.lost) {
      record.error = outcome.error;
      throw new Stop();
    }
    record.status = outcome.status;
    record.response = outcome.body;
    record.outcome = outcome.status < 300 ? 'acknowledged' : outcome.status >= 500 ? 'failed' : 'refused';
    return record.outcome === 'acknowledged' ? (outcome.body ?? {}) : undefined;
  }

  private async paymentFlow(lane: Parameters<MixedLoad['write']>[0]): Promise<void> {
    const authorizedCents = this.between(1_000, 20_000);
    const order = await this.write(lane, 'order.create', 'POST', '/v2/checkout/orders', {
      intent: 'AUTHORIZE',
      purchase_units: [{ amount: usd(authorizedCents) }],
      payment_source: CARD,
    }, { cents: authorizedCents });
    if (!order) return;
    const authorized = await this.write(lane, 'order.authorize', 'POST', `/v2/checkout/orders/${order.id}/authorize`, {}, { parent: order.id, cents: authorizedCents });
    const authId = authorized?.purchase_units?.[0]?.payments?.authorizations?.[0]?.id as string | undefined;
    if (!authId) return;
    if (this.#random() < 0.15) {
      await this.write(lane, 'authorization.void', 'POST', `/v2/payments/authorizations/${authId}/void`, {}, { parent: authId });
      return;
    }
    let left = authorizedCents;
    for (let part = this.between(1, 3); part > 0 && left > 0; part -= 1) {
      const cents = part === 1 ? left : this.between(1, Math.max(1, Math.floor(left / 2)));
      left -= cents;
      const captured = await this.write(lane, 'authorization.capture', 'POST', `/v2/payments/authorizations/${authId}/capture`, {
        amount: usd(cents),
        final_capture: false,
      }, { parent: authId, cents });
      if (!captured) return;
      let refundable = cents;
      for (let refunds = this.#random() < 0.6 ? this.between(1, 2) : 0; refunds > 0 && refundable > 0; refunds -= 1) {
        const refundCents = this.between(1, refundable);
        refundable -= refundCents;
        const refunded = await this.write(lane, 'capture.refund', 'POST', `/v2/payments/captures/${captured.id}/refund`, { amount: usd(refundCents) }, {
          parent: captured.id,
          cents: refundCents,
        });
        if (!refunded) return;
      }
    }
  }

  private async invoiceFlow(lane: Parameters<MixedLoad['write']>[0]): Promise<void> {
    const total = this.between(500, 50_000);
    const invoice = await this.write(lane, 'invoice.create', 'POST', '/v2/invoicing/invoices', {
      detail: { currency_code: 'USD', memo: 'reliability load' },
      primary_recipients: [{ billing_info: { email_address: 'payer@example.com' } }],
      items: [{ name: 'Service', quantity: '1', unit_amount: usd(total) }],
    }, { cents: total });
    if (!invoice) return;
    const id = invoice.id as string;
    if (!(await this.write(lane, 'invoice.send', 'POST', `/v2/invoicing/invoices/${id}/send`, {}, { parent: id }))) return;
    const methods = ['BANK_TRANSFER', 'PLATFORM', 'CASH'];
    let paid = 0;
    for (let payments = this.between(1, 2); payments > 0 && paid < total; payments -= 1) {
      const cents = payments === 1 ? total - paid : this.between(1, total - paid);
      const method = methods[this.between(0, methods.length - 1)] as string;
      if (!(await this.write(lane, 'invoice.payment', 'POST', `/v2/invoicing/invoices/${id}/payments`, { method, amount: usd(cents) }, { parent: id, cents }))) return;
      paid += cents;
    }
    if (this.#random() < 0.4) {
      const cents = this.between(1, paid);
      await this.write(lane, 'invoice.refund', 'POST', `/v2/invoicing/invoices/${id}/refunds`, { method: 'BANK_TRANSFER', amount: usd(cents) }, { parent: id, cents });
    }
  }

  private async payoutFlow(lane: Parameters<MixedLoad['write']>[0]): Promise<void> {
    if (!(await this.write(lane, 'balance.top-up', 'POST', '/_payctl/balances', { currency: 'USD', value: '50.00' }, { cents: 5_000 }))) return;
    const paid = this.between(100, 1_500);
    const unclaimed = this.between(100, 1_500);
    const batch = await this.write(lane, 'payout.create', 'POST', '/v1/payments/payouts', {
      sender_batch_header: { sender_batch_id: `load-${randomUUID()}`, email_subject: 'Reliability payout' },
      items: [
        { recipient_type: 'PAYPAL_ID', receiver: this.options.receiverPayerId, amount: { currency: 'USD', value: usdValue(paid) } },
        { recipient_type: 'EMAIL', receiver: `unclaimed-${randomUUID()}@example.com`, amount: { currency: 'USD', value: usdValue(unclaimed) } },
      ],
    }, { cents: paid + unclaimed });
    const batchId = batch?.batch_header?.payout_batch_id as string | undefined;
    if (!batchId) return;
    // Processing runs on the server's job tick: look for the unclaimed item for a while, then cancel it.
    type Item = { payout_item_id: string; transaction_status: string };
    let item = undefined as Item | undefined;
    const found = waitFor(
      async () => {
        if (!lane.budget()) return true;
        const got = await this.options.client.call('GET', `/v1/payments/payouts/${batchId}`, { token: this.options.token });
        if (got.lost) throw new Stop();
        item = (got.body?.items as Item[] | undefined)?.find((entry) => entry.transaction_status === 'UNCLAIMED');
        return item !== undefined;
      },
      { timeoutMs: 1_200, intervalMs: 100, what: `an UNCLAIMED item in ${batchId}` },
    );
    // Not yet processed in that time: the flow ends without the cancel, as a caller might give up.
    await found.catch((error: unknown) => {
      if (error instanceof Stop) throw error;
    });
    if (item) await this.write(lane, 'payout-item.cancel', 'POST', `/v1/payments/payouts-item/${item.payout_item_id}/cancel`, undefined, { parent: item.payout_item_id });
  }
}
