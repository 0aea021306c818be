// The server's answer types and the CLI client's: each is declared once on its side (the server's
// next to its presenter, the client's as the zod schema it parses with), and here the server's must
// fit what the client expects. The check is the type check (`npm run typecheck` compiles this file):
// a field the client needs that the server stopped giving, or gives in another shape, fails it.

import { describe, expect, it } from 'vitest';
import type * as disputes from '../../src/lib/api/disputes.js';
import type * as invoices from '../../src/lib/api/invoices.js';
import type * as orders from '../../src/lib/api/orders.js';
import type * as payments from '../../src/lib/api/payments.js';
import type * as payouts from '../../src/lib/api/payouts.js';
import type * as webhooks from '../../src/lib/api/webhooks.js';
import type { DisputeResource, DisputeSummary } from '../../src/server/disputes/render.js';
import type { InvoiceResource } from '../../src/server/invoicing/resource.js';
import type { Order } from '../../src/server/orders/present.js';
import type { Tracker } from '../../src/server/orders/trackers.js';
import type { Authorization, Capture, Refund } from '../../src/server/payments/present.js';
import type { PayoutBatchHeader, PayoutBatchResource, PayoutItemResource } from '../../src/server/payouts/resources.js';
import type { EventEnvelope } from '../../src/server/core/events.js';
import type { Link } from '../../src/server/http/links.js';

/** The fields a client type names, at every depth (its zod looseObjects also accept any other field). */
type Named<T> = T extends readonly (infer E)[]
  ? Named<E>[]
  : T extends object
    ? { [K in keyof T as string extends K ? never : K]: Named<T[K]> }
    : T;

/** Compiles only when Server is assignable to Client. */
const fits =
  <Client>() =>
  <Server extends Client>(): true =>
    true;

describe("the server's answer types fit the CLI client's", () => {
  it('payments: authorization, capture, refund', () => {
    expect(fits<Named<payments.Authorization>>()<Authorization>()).toBe(true);
    expect(fits<Named<payments.Capture>>()<Capture>()).toBe(true);
    expect(fits<Named<payments.Refund>>()<Refund>()).toBe(true);
  });

  it('orders and trackers', () => {
    expect(fits<Named<orders.Order>>()<Order>()).toBe(true);
    expect(fits<Named<orders.Tracker>>()<Tracker>()).toBe(true);
  });

  it('disputes', () => {
    expect(fits<Named<disputes.Dispute>>()<DisputeResource>()).toBe(true);
    expect(fits<Named<disputes.DisputeList>>()<{ items: DisputeSummary[]; links: Link[] }>()).toBe(true);
  });

  it('payouts: batch header and batch', () => {
    expect(fits<Named<payouts.PayoutBatchHeader>>()<PayoutBatchHeader>()).toBe(true);
    expect(fits<Named<payouts.PayoutBatch>>()<Omit<PayoutBatchResource, 'items'>>()).toBe(true);
  });

  // Not yet checked, because the server's type is still looser than what the client parses:
  // an invoice's items (Record<string, unknown>[] from renderItems), a payout item's transaction_id
  // (string | null as stored), and an event's resource (unknown: the outbox takes any domain's).
  it('names the answers whose server type is still looser than the client', () => {
    type Loose = [InvoiceResource, PayoutItemResource, EventEnvelope, invoices.Invoice, payouts.PayoutItem, webhooks.WebhookEvent];
    expect<Loose | undefined>(undefined).toBeUndefined();
  });
});
