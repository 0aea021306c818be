// The official @paypal/paypal-server-sdk, unmodified, against the real server: only its transport is
// pointed at the test server (an https.Agent whose connections go to 127.0.0.1 in plain HTTP).

import { randomUUID } from 'node:crypto';
import { Agent } from 'node:https';
import { connect, type Socket } from 'node:net';
import {
  AuthorizationStatus,
  CaptureStatus,
  CheckoutPaymentIntent,
  Client,
  Environment,
  OrdersController,
  OrderStatus,
  OrderTrackerStatus,
  PatchOp,
  PaymentsController,
  RefundStatus,
  ShipmentCarrier,
  type ApiResponse,
} from '@paypal/paypal-server-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishedApiFor, type SchemaViolation } from '../helpers/openapi.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** Every request's TLS connection becomes a plain TCP connection to the local server. */
class LocalServerAgent extends Agent {
  constructor(private readonly port: number) {
    super({ keepAlive: true });
  }

  override createConnection(): Socket {
    return connect({ host: '127.0.0.1', port: this.port });
  }
}

const DAY = 86_400;
const CARD = { card: { number: '4111111111111111', expiry: '2030-12' } };
const REPRESENTATION = 'return=representation';

let t: TestServer;
let agent: LocalServerAgent;
let orders: OrdersController;
let payments: PaymentsController;
/** The client's token requests, counted through the SDK's own token callback. */
let tokensTaken = 0;
/** Every SDK response, for the published-schema check at the end. */
const answered: Array<{ method: string; path: string; status: number; body: unknown }> = [];

/**
 * Records an SDK response. The spec (seed) answers capture, refund and reauthorize with 200 where the
 * published files say 201 (see published-schemas.test.ts); the SDK takes any 2xx.
 */
async function sdk<T>(call: Promise<ApiResponse<T>>): Promise<T> {
  let response: ApiResponse<T>;
  try {
    response = await call;
  } catch (error) {
    // Name the server's answer, not only the SDK's generic message.
    const failed = error as { statusCode?: number; body?: unknown; request?: { method?: string; url?: string }; message?: string };
    throw new Error(`SDK call failed: ${failed.request?.method} ${failed.request?.url} -> ${failed.statusCode}: ${String(failed.body ?? failed.message)}`);
  }
  const url = new URL(response.request.url);
  const body = typeof response.body === 'string' && response.body.length > 0 ? (JSON.parse(response.body) as unknown) : undefined;
  answered.push({ method: response.request.method, path: url.pathname, status: response.statusCode, body });
  return response.result;
}

/** What the server stored, read over plain HTTP with the harness's own token. */
async function stored(path: string): Promise<any> {
  const result = await t.request('GET', path);
  expect(result.status, result.text).toBe(200);
  return result.body;
}

beforeAll(async () => {
  t = await startTestServer({ memory: true });
  agent = new LocalServerAgent(Number(new URL(t.url).port));
  const client = new Client({
    environment: Environment.Sandbox,
    clientCredentialsAuthCredentials: {
      oAuthClientId: t.merchant.client_id,
      oAuthClientSecret: t.merchant.client_secret,
      oAuthOnTokenUpdate: () => {
        tokensTaken += 1;
      },
    },
    timeout: 10_000,
    httpClientOptions: { httpsAgent: agent, retryConfig: { maxNumberOfRetries: 0 } },
  });
  orders = new OrdersController(client);
  payments = new PaymentsController(client);
});

afterAll(async () => {
  agent.destroy();
  await t.close();
});

async function authorizedOrder(value: string): Promise<string> {
  const created = await sdk(
    orders.createOrder({
      body: { intent: CheckoutPaymentIntent.Authorize, purchaseUnits: [{ amount: { currencyCode: 'USD', value } }], paymentSource: CARD },
      paypalRequestId: randomUUID(),
      prefer: REPRESENTATION,
    }),
  );
  expect(created.id).toMatch(/^[A-Z0-9]+$/);
  const fetched = await sdk(orders.getOrder({ id: created.id! }));
  expect(fetched.purchaseUnits?.[0]?.amount).toEqual({ currencyCode: 'USD', value });
  expect(fetched.status).toBe((await stored(`/v2/checkout/orders/${created.id}`)).status);
  const authorized = await sdk(orders.authorizeOrder({ id: created.id!, paypalRequestId: randomUUID(), prefer: REPRESENTATION }));
  expect(authorized.status).toBe(OrderStatus.Completed);
  const authorization = authorized.purchaseUnits?.[0]?.payments?.authorizations?.[0];
  expect(authorization?.status).toBe(AuthorizationStatus.Created);
  expect(authorization?.amount).toEqual({ currencyCode: 'USD', value });
  return authorization!.id!;
}

/** The last recorded SDK answer's status: void operations (204) have no typed result to assert on. */
const lastStatus = () => answered.at(-1)?.status;

/**
 * orders.patchOrder, confirmOrder (confirm-payment-source), captureOrder, createOrderTracking and
 * updateOrderTracking on one order: every orders operation the SDK offers beyond create/get/authorize.
 */
async function patchedConfirmedAndTracked(): Promise<{ patchedId: string; patchedCapture: string }> {
  const unit = "/purchase_units/@reference_id=='default'";
  const created = await sdk(
    orders.createOrder({
      body: {
        intent: CheckoutPaymentIntent.Capture,
        purchaseUnits: [
          {
            amount: { currencyCode: 'USD', value: '20.00', breakdown: { itemTotal: { currencyCode: 'USD', value: '20.00' } } },
            items: [{ name: 'Boot', sku: 'BOOT-1', quantity: '1', unitAmount: { currencyCode: 'USD', value: '20.00' } }],
            customId: 'before-patch',
          },
        ],
      },
      paypalRequestId: randomUUID(),
      prefer: REPRESENTATION,
    }),
  );
  expect(created.status).toBe(OrderStatus.Created);
  const id = created.id!;
  const patched = await sdk(
    orders.patchOrder({
      id,
      body: [
        { op: PatchOp.Replace, path: `${unit}/custom_id`, value: 'after-patch' },
        { op: PatchOp.Add, path: `${unit}/invoice_id`, value: 'INV-SDK-1' },
        {
          op: PatchOp.Replace,
          path: `${unit}/items`,
          value: [
            { name: 'Boot', sku: 'BOOT-1', quantity: '1', unit_amount: { currency_code: 'USD', value: '20.00' } },
            { name: 'Lace', sku: 'LACE-1', quantity: '2', unit_amount: { currency_code: 'USD', value: '2.50' } },
          ],
        },
        { op: PatchOp.Replace, path: `${unit}/amount`, value: { currency_code: 'USD', value: '25.00', breakdown: { item_total: { currency_code: 'USD', value: '25.00' } } } },
      ],
    }),
  );
  expect(patched).toBeUndefined();
  expect(lastStatus()).toBe(204);
  const afterPatch = (await sdk(orders.getOrder({ id }))).purchaseUnits?.[0];
  expect(afterPatch?.customId).toBe('after-patch');
  expect(afterPatch?.invoiceId).toBe('INV-SDK-1');
  expect(afterPatch?.amount?.value).toBe('25.00');
  expect(afterPatch?.amount?.breakdown?.itemTotal).toEqual({ currencyCode: 'USD', value: '25.00' });
  expect(afterPatch?.items?.map((item) => [item.sku, item.quantity, item.unitAmount?.value])).toEqual([
    ['BOOT-1', '1', '20.00'],
    ['LACE-1', '2', '2.50'],
  ]);

  const confirmed = await sdk(orders.confirmOrder({ id, prefer: REPRESENTATION, body: { paymentSource: CARD } }));
  expect(confirmed.status).toBe(OrderStatus.Approved);
  expect(confirmed.paymentSource?.card?.lastDigits).toBe('1111');
  expect((await stored(`/v2/checkout/orders/${id}`)).status).toBe('APPROVED');
  const captured = await sdk(orders.captureOrder({ id, paypalRequestId: randomUUID(), prefer: REPRESENTATION }));
  const capture = captured.purchaseUnits?.[0]?.payments?.captures?.[0];
  expect(capture?.amount).toEqual({ currencyCode: 'USD', value: '25.00' });
  expect(capture?.invoiceId).toBe('INV-SDK-1');

  const tracked = await sdk(
    orders.createOrderTracking({
      id,
      body: { captureId: capture!.id!, trackingNumber: '1Z999AA10123456784', carrier: ShipmentCarrier.Ups, items: [{ sku: 'LACE-1', quantity: '2' }] },
    }),
  );
  expect(lastStatus()).toBe(201);
  const tracker = tracked.purchaseUnits?.[0]?.shipping?.trackers?.[0];
  expect(tracker?.id).toBe(`${capture!.id}-1Z999AA10123456784`);
  expect(tracker?.status).toBe(OrderTrackerStatus.Shipped);
  expect(tracker?.items).toEqual([{ sku: 'LACE-1', quantity: '2' }]);
  await sdk(orders.updateOrderTracking({ id, trackerId: tracker!.id!, body: [{ op: PatchOp.Replace, path: '/items', value: [{ sku: 'BOOT-1', quantity: '1' }] }] }));
  expect(lastStatus()).toBe(204);
  const reItemed = await sdk(orders.getOrder({ id }));
  expect(reItemed.purchaseUnits?.[0]?.shipping?.trackers?.[0]?.items).toEqual([{ sku: 'BOOT-1', quantity: '1' }]);
  await sdk(orders.updateOrderTracking({ id, trackerId: tracker!.id!, body: [{ op: PatchOp.Replace, path: '/status', value: 'CANCELLED' }] }));
  expect(lastStatus()).toBe(204);
  const cancelled = await sdk(orders.getOrder({ id }));
  expect(cancelled.purchaseUnits?.[0]?.shipping?.trackers?.[0]?.status).toBe(OrderTrackerStatus.Cancelled);
  return { patchedId: id, patchedCapture: capture!.id! };
}

describe('@paypal/paypal-server-sdk against payctl serve', () => {
  // One client object for the whole flow, across a clock advance of days: its token is cached by
  // wall-clock time and must stay valid.
  it('runs orders (patch, confirm, track), authorizations, captures and refunds, with a clock advance in the middle', async () => {
    // Orders: create, get, authorize (three authorizations), and an order captured directly.
    const partial = await authorizedOrder('100.00');
    const toVoid = await authorizedOrder('40.00');
    const toReauthorize = await authorizedOrder('60.00');
    const direct = await sdk(
      orders.createOrder({
        body: { intent: CheckoutPaymentIntent.Capture, purchaseUnits: [{ amount: { currencyCode: 'USD', value: '25.00' } }], paymentSource: CARD },
        paypalRequestId: randomUUID(),
        prefer: REPRESENTATION,
      }),
    );
    const directCaptured = await sdk(orders.captureOrder({ id: direct.id!, paypalRequestId: randomUUID(), prefer: REPRESENTATION }));
    expect(directCaptured.status).toBe(OrderStatus.Completed);
    const orderCapture = directCaptured.purchaseUnits?.[0]?.payments?.captures?.[0];
    expect(orderCapture?.status).toBe(CaptureStatus.Completed);
    expect(orderCapture?.amount).toEqual({ currencyCode: 'USD', value: '25.00' });

    // Changes before payment, the card confirmed by the merchant, then shipment tracking.
    const { patchedId, patchedCapture } = await patchedConfirmedAndTracked();
    expect((await stored(`/v2/checkout/orders/${patchedId}`)).purchase_units[0].shipping.trackers[0].status).toBe('CANCELLED');
    expect(patchedCapture).toMatch(/^[A-Z0-9]+$/);

    // Authorizations: get, partial capture.
    const fetched = await sdk(payments.getAuthorizedPayment({ authorizationId: partial }));
    expect(fetched.status).toBe(AuthorizationStatus.Created);
    expect(fetched.amount).toEqual({ currencyCode: 'USD', value: '100.00' });
    const first = await sdk(
      payments.captureAuthorizedPayment({
        authorizationId: partial,
        paypalRequestId: randomUUID(),
        prefer: REPRESENTATION,
        body: { amount: { currencyCode: 'USD', value: '30.00' }, finalCapture: false },
      }),
    );
    expect(first.status).toBe(CaptureStatus.Completed);
    expect(first.amount).toEqual({ currencyCode: 'USD', value: '30.00' });
    expect(first.finalCapture).toBe(false);
    expect((await sdk(payments.getAuthorizedPayment({ authorizationId: partial }))).status).toBe(AuthorizationStatus.PartiallyCaptured);
    const tokensBefore = tokensTaken;

    // Four days later on the merchant's sandbox clock (past the three-day honour period).
    const advanced = await t.request('POST', '/_payctl/clock', { body: { advance_seconds: 4 * DAY } });
    expect(advanced.status).toBe(200);
    expect(advanced.body.offset_seconds).toBe(4 * DAY);

    // Reauthorize after the clock move, with the same client and its cached token.
    const reauthorized = await sdk(
      payments.reauthorizePayment({
        authorizationId: toReauthorize,
        paypalRequestId: randomUUID(),
        prefer: REPRESENTATION,
        body: { amount: { currencyCode: 'USD', value: '60.00' } },
      }),
    );
    expect(reauthorized.status).toBe(AuthorizationStatus.Created);
    expect(reauthorized.amount).toEqual({ currencyCode: 'USD', value: '60.00' });
    expect(reauthorized.id).not.toBe(toReauthorize);
    expect(tokensTaken).toBe(tokensBefore);

    // Final capture of part of the rest closes the authorization.
    const last = await sdk(
      payments.captureAuthorizedPayment({
        authorizationId: partial,
        paypalRequestId: randomUUID(),
        prefer: REPRESENTATION,
        body: { amount: { currencyCode: 'USD', value: '20.00' }, finalCapture: true },
      }),
    );
    expect(last.status).toBe(CaptureStatus.Completed);
    expect(last.finalCapture).toBe(true);
    const closed = await sdk(payments.getAuthorizedPayment({ authorizationId: partial }));
    expect(closed.status).toBe(AuthorizationStatus.Captured);
    expect(closed.status).toBe((await stored(`/v2/payments/authorizations/${partial}`)).status);

    // Void: the SDK sends an empty body labelled as a form (axios's default).
    const voided = await sdk(payments.voidPayment({ authorizationId: toVoid, prefer: REPRESENTATION }));
    expect(voided?.status).toBe(AuthorizationStatus.Voided);
    expect(voided?.amount).toEqual({ currencyCode: 'USD', value: '40.00' });
    expect((await stored(`/v2/payments/authorizations/${toVoid}`)).status).toBe('VOIDED');
    // The reauthorization can be captured in full without a body.
    const ofReauthorization = await sdk(payments.captureAuthorizedPayment({ authorizationId: reauthorized.id!, paypalRequestId: randomUUID(), prefer: REPRESENTATION }));
    expect(ofReauthorization.amount).toEqual({ currencyCode: 'USD', value: '60.00' });

    // Captures: get, partial refund, the rest.
    const capture = await sdk(payments.getCapturedPayment({ captureId: first.id! }));
    expect(capture.status).toBe(CaptureStatus.Completed);
    expect(capture.amount).toEqual({ currencyCode: 'USD', value: '30.00' });
    const partRefund = await sdk(
      payments.refundCapturedPayment({
        captureId: first.id!,
        paypalRequestId: randomUUID(),
        prefer: REPRESENTATION,
        body: { amount: { currencyCode: 'USD', value: '10.00' }, noteToPayer: 'Part of the order' },
      }),
    );
    expect(partRefund.status).toBe(RefundStatus.Completed);
    expect(partRefund.amount).toEqual({ currencyCode: 'USD', value: '10.00' });
    expect((await sdk(payments.getCapturedPayment({ captureId: first.id! }))).status).toBe(CaptureStatus.PartiallyRefunded);
    const restRefund = await sdk(payments.refundCapturedPayment({ captureId: first.id!, paypalRequestId: randomUUID(), prefer: REPRESENTATION }));
    expect(restRefund.amount).toEqual({ currencyCode: 'USD', value: '20.00' });
    const refunded = await sdk(payments.getCapturedPayment({ captureId: first.id! }));
    expect(refunded.status).toBe(CaptureStatus.Refunded);
    expect(refunded.status).toBe((await stored(`/v2/payments/captures/${first.id}`)).status);
    const orderCaptureRefund = await sdk(payments.refundCapturedPayment({ captureId: orderCapture!.id!, paypalRequestId: randomUUID(), prefer: REPRESENTATION }));
    expect(orderCaptureRefund.amount).toEqual({ currencyCode: 'USD', value: '25.00' });

    // Refunds: get, matching what the server stored.
    for (const refund of [partRefund, restRefund, orderCaptureRefund]) {
      const got = await sdk(payments.getRefund({ refundId: refund.id! }));
      const row = await stored(`/v2/payments/refunds/${refund.id}`);
      expect(got.status).toBe(row.status);
      expect(got.amount).toEqual({ currencyCode: row.amount.currency_code, value: row.amount.value });
    }
    // The SDK took one token for the whole flow.
    expect(tokensTaken).toBe(1);
  });

  it('got answers inside the published schemas for every call', () => {
    expect(answered.length).toBeGreaterThan(20);
    const violations: SchemaViolation[] = [];
    for (const { method, path, status, body } of answered) {
      const api = publishedApiFor(path);
      if (!api) continue;
      // The spec's 200 for capture, refund and reauthorize where the files say 201: validated as 201.
      const declared = status === 200 && method === 'POST' && /\/(capture|refund|reauthorize)$/.test(path) && path.startsWith('/v2/payments/') ? 201 : status;
      const violation = api.validate(method, path, declared, body);
      if (violation) violations.push(violation);
    }
    expect(violations).toEqual([]);
  });
});
