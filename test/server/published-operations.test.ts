// Every operation (method and path) of the six published API files is routed: none answers 405,
// and none answers the router's 404 (a 404 for an unknown resource names the resource's id).

import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ memory: true });
});
afterAll(async () => {
  await t.close();
});

/** The operations of the orders, payments, invoicing, disputes, payouts and webhooks files. */
const OPERATIONS: Array<[string, string]> = [
  // orders v2
  ['POST', '/v2/checkout/orders'],
  ['GET', '/v2/checkout/orders/{id}'],
  ['PATCH', '/v2/checkout/orders/{id}'],
  ['POST', '/v2/checkout/orders/{id}/confirm-payment-source'],
  ['POST', '/v2/checkout/orders/{id}/authorize'],
  ['POST', '/v2/checkout/orders/{id}/capture'],
  ['POST', '/v2/checkout/orders/{id}/track'],
  ['PATCH', '/v2/checkout/orders/{id}/trackers/{tracker_id}'],
  // payments v2
  ['GET', '/v2/payments/authorizations/{authorization_id}'],
  ['POST', '/v2/payments/authorizations/{authorization_id}/capture'],
  ['POST', '/v2/payments/authorizations/{authorization_id}/reauthorize'],
  ['POST', '/v2/payments/authorizations/{authorization_id}/void'],
  ['GET', '/v2/payments/captures/{capture_id}'],
  ['POST', '/v2/payments/captures/{capture_id}/refund'],
  ['GET', '/v2/payments/refunds/{refund_id}'],
  // invoicing v2
  ['POST', '/v2/invoicing/invoices'],
  ['GET', '/v2/invoicing/invoices'],
  ['POST', '/v2/invoicing/invoices/{invoice_id}/send'],
  ['POST', '/v2/invoicing/invoices/{invoice_id}/remind'],
  ['POST', '/v2/invoicing/invoices/{invoice_id}/cancel'],
  ['POST', '/v2/invoicing/invoices/{invoice_id}/payments'],
  ['DELETE', '/v2/invoicing/invoices/{invoice_id}/payments/{transaction_id}'],
  ['POST', '/v2/invoicing/invoices/{invoice_id}/refunds'],
  ['DELETE', '/v2/invoicing/invoices/{invoice_id}/refunds/{transaction_id}'],
  ['POST', '/v2/invoicing/invoices/{invoice_id}/generate-qr-code'],
  ['POST', '/v2/invoicing/generate-next-invoice-number'],
  ['GET', '/v2/invoicing/invoices/{invoice_id}'],
  ['PUT', '/v2/invoicing/invoices/{invoice_id}'],
  ['DELETE', '/v2/invoicing/invoices/{invoice_id}'],
  ['POST', '/v2/invoicing/search-invoices'],
  ['GET', '/v2/invoicing/templates'],
  ['POST', '/v2/invoicing/templates'],
  ['GET', '/v2/invoicing/templates/{template_id}'],
  ['PUT', '/v2/invoicing/templates/{template_id}'],
  ['DELETE', '/v2/invoicing/templates/{template_id}'],
  // disputes v1
  ['GET', '/v1/customer/disputes'],
  ['GET', '/v1/customer/disputes/{id}'],
  ['PATCH', '/v1/customer/disputes/{id}'],
  ['POST', '/v1/customer/disputes/{id}/provide-evidence'],
  ['POST', '/v1/customer/disputes/{id}/appeal'],
  ['POST', '/v1/customer/disputes/{id}/accept-claim'],
  ['POST', '/v1/customer/disputes/{id}/adjudicate'],
  ['POST', '/v1/customer/disputes/{id}/require-evidence'],
  ['POST', '/v1/customer/disputes/{id}/escalate'],
  ['POST', '/v1/customer/disputes/{id}/send-message'],
  ['POST', '/v1/customer/disputes/{id}/make-offer'],
  ['POST', '/v1/customer/disputes/{id}/accept-offer'],
  ['POST', '/v1/customer/disputes/{id}/deny-offer'],
  ['POST', '/v1/customer/disputes/{id}/acknowledge-return-item'],
  ['POST', '/v1/customer/disputes/{id}/provide-supporting-info'],
  // payouts v1
  ['POST', '/v1/payments/payouts'],
  ['GET', '/v1/payments/payouts/{id}'],
  ['GET', '/v1/payments/payouts-item/{payout_item_id}'],
  ['POST', '/v1/payments/payouts-item/{payout_item_id}/cancel'],
  // webhooks v1
  ['POST', '/v1/notifications/webhooks'],
  ['GET', '/v1/notifications/webhooks'],
  ['GET', '/v1/notifications/webhooks/{webhook_id}'],
  ['PATCH', '/v1/notifications/webhooks/{webhook_id}'],
  ['DELETE', '/v1/notifications/webhooks/{webhook_id}'],
  ['GET', '/v1/notifications/webhooks/{webhook_id}/event-types'],
  ['POST', '/v1/notifications/webhooks-lookup'],
  ['GET', '/v1/notifications/webhooks-lookup'],
  ['GET', '/v1/notifications/webhooks-lookup/{webhook_lookup_id}'],
  ['DELETE', '/v1/notifications/webhooks-lookup/{webhook_lookup_id}'],
  ['POST', '/v1/notifications/verify-webhook-signature'],
  ['GET', '/v1/notifications/webhooks-event-types'],
  ['GET', '/v1/notifications/webhooks-events'],
  ['GET', '/v1/notifications/webhooks-events/{event_id}'],
  ['POST', '/v1/notifications/webhooks-events/{event_id}/resend'],
  ['POST', '/v1/notifications/simulate-event'],
];

it('lists the 70 operations of the six files', () => {
  expect(OPERATIONS).toHaveLength(70);
});

it.each(OPERATIONS)('%s %s is routed', async (method, template) => {
  const path = template.replace(/\{[^}]+\}/g, 'NOSUCH123');
  const result = await t.request(method, path, method === 'GET' || method === 'DELETE' ? {} : { body: {} });
  expect(result.status, result.text).not.toBe(405);
  if (result.status === 404) expect(result.body.details?.[0]?.field, result.text).toBeDefined();
});

it('tells a route the server does not have from a resource it does not have (positive control)', async () => {
  const unrouted = await t.request('PATCH', '/v2/payments/captures/NOSUCH123', { body: [] });
  expect([404, 405]).toContain(unrouted.status);
  if (unrouted.status === 404) expect(unrouted.body.details).toBeUndefined();
  const missing = await t.request('GET', '/v2/checkout/orders/NOSUCH123');
  expect(missing.status).toBe(404);
  expect(missing.body.details[0].field).toBeDefined();
});
