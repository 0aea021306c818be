// Shared steps of the payments and orders tests: an authorization or a capture in one call.

import { randomUUID } from 'node:crypto';
import type { HttpResult, TestServer } from '../helpers/server.js';

export const FULL = { prefer: 'return=representation' } as const;

export interface AuthorizeOptions {
  token?: string;
  invoiceId?: string;
  headers?: Record<string, string>;
}

export async function createOrder(
  t: TestServer,
  intent: 'AUTHORIZE' | 'CAPTURE',
  value: string,
  currency = 'USD',
  options: AuthorizeOptions = {},
): Promise<HttpResult> {
  const unit: Record<string, unknown> = { amount: { currency_code: currency, value } };
  if (options.invoiceId) unit.invoice_id = options.invoiceId;
  return t.request('POST', '/v2/checkout/orders', {
    body: { intent, purchase_units: [unit], payment_source: { card: { number: '4111111111111111', expiry: '2030-12' } } },
    headers: { 'service-request-id': randomUUID(), ...FULL },
    ...(options.token ? { token: options.token } : {}),
  });
}

/** A CREATED authorization of `value` (an order with a card, authorized). */
export async function authorize(t: TestServer, value: string, currency = 'USD', options: AuthorizeOptions = {}): Promise<string> {
  const order = await createOrder(t, 'AUTHORIZE', value, currency, options);
  if (order.status !== 201) throw new Error(`order creation failed: ${order.status} ${order.text}`);
  const authorized = await t.request('POST', `/v2/checkout/orders/${order.body.id}/authorize`, {
    headers: { ...FULL, ...(options.headers ?? {}) },
    ...(options.token ? { token: options.token } : {}),
  });
  if (authorized.status !== 201) throw new Error(`authorize failed: ${authorized.status} ${authorized.text}`);
  return authorized.body.purchase_units[0].payments.authorizations[0].id as string;
}

export function capture(t: TestServer, authId: string, body: unknown = {}, headers: Record<string, string> = {}, token?: string) {
  return t.request('POST', `/v2/payments/authorizations/${authId}/capture`, {
    body,
    headers: { ...FULL, ...headers },
    ...(token ? { token } : {}),
  });
}

export function refund(t: TestServer, captureId: string, body: unknown = {}, headers: Record<string, string> = {}, token?: string) {
  return t.request('POST', `/v2/payments/captures/${captureId}/refund`, {
    body,
    headers: { ...FULL, ...headers },
    ...(token ? { token } : {}),
  });
}

/** A COMPLETED capture of `value` on a fresh authorization of the same amount. */
export async function capturedPayment(t: TestServer, value: string, currency = 'USD'): Promise<{ authId: string; captureId: string }> {
  const authId = await authorize(t, value, currency);
  const captured = await capture(t, authId);
  if (captured.status !== 200) throw new Error(`capture failed: ${captured.status} ${captured.text}`);
  return { authId, captureId: captured.body.id as string };
}

export const usd = (value: string) => ({ amount: { currency_code: 'USD', value } });

/** The outbox rows of the default merchant, oldest first. */
export async function outbox(t: TestServer, accountId = t.merchant.payer_id) {
  const rows = await t.server.db
    .selectFrom('events')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('seq')
    .execute();
  return rows.map((row) => ({ ...row, envelope: JSON.parse(row.body) as Record<string, any> }));
}
