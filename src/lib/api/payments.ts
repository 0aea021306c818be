// /v2/payments: authorizations, captures and refunds, one typed function per endpoint.

import { z } from 'zod';
import type { Money } from '../money.js';
import type { ApiClient } from './client.js';
import { linkSchema } from './types.js';

const moneySchema = z.looseObject({ currency_code: z.string(), value: z.string() });
const statusDetailsSchema = z.looseObject({ reason: z.string().optional() });
const relatedSchema = z.looseObject({
  related_ids: z.looseObject({ order_id: z.string().optional(), authorization_id: z.string().optional() }).optional(),
});

export const authorizationSchema = z.looseObject({
  id: z.string(),
  status: z.string(),
  status_details: statusDetailsSchema.optional(),
  amount: moneySchema.optional(),
  invoice_id: z.string().optional(),
  custom_id: z.string().optional(),
  expiration_time: z.string().optional(),
  create_time: z.string().optional(),
  update_time: z.string().optional(),
  supplementary_data: relatedSchema.optional(),
  links: z.array(linkSchema).optional(),
});
export type Authorization = z.infer<typeof authorizationSchema>;

export const captureSchema = z.looseObject({
  id: z.string(),
  status: z.string(),
  status_details: statusDetailsSchema.optional(),
  amount: moneySchema.optional(),
  final_capture: z.boolean().optional(),
  invoice_id: z.string().optional(),
  custom_id: z.string().optional(),
  seller_receivable_breakdown: z
    .looseObject({ gross_amount: moneySchema, paypal_fee: moneySchema.optional(), net_amount: moneySchema.optional() })
    .optional(),
  create_time: z.string().optional(),
  update_time: z.string().optional(),
  supplementary_data: relatedSchema.optional(),
  links: z.array(linkSchema).optional(),
});
export type Capture = z.infer<typeof captureSchema>;

export const refundSchema = z.looseObject({
  id: z.string(),
  status: z.string(),
  amount: moneySchema.optional(),
  invoice_id: z.string().optional(),
  custom_id: z.string().optional(),
  note_to_payer: z.string().optional(),
  seller_payable_breakdown: z
    .looseObject({
      gross_amount: moneySchema.optional(),
      paypal_fee: moneySchema.optional(),
      net_amount: moneySchema.optional(),
      total_refunded_amount: moneySchema.optional(),
    })
    .optional(),
  create_time: z.string().optional(),
  update_time: z.string().optional(),
  links: z.array(linkSchema).optional(),
});
export type Refund = z.infer<typeof refundSchema>;

const FULL = 'return=representation';
const AUTHORIZATIONS = '/v2/payments/authorizations';
const segment = (id: string) => encodeURIComponent(id);

export interface CallOptions {
  requestId?: string;
  /** Extra headers, e.g. Service-Mock-Response for negative testing. */
  headers?: Record<string, string>;
}

function extras(options: CallOptions) {
  return {
    ...(options.requestId ? { requestId: options.requestId } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
  };
}

export async function getAuthorization(client: ApiClient, id: string): Promise<Authorization> {
  const response = await client.request({ method: 'GET', path: `${AUTHORIZATIONS}/${segment(id)}` });
  return authorizationSchema.parse(response.body);
}

export interface CaptureRequest {
  amount?: Money;
  final_capture?: boolean;
  invoice_id?: string;
  note_to_payer?: string;
  soft_descriptor?: string;
}

export async function captureAuthorization(client: ApiClient, id: string, body: CaptureRequest, options: CallOptions = {}): Promise<Capture> {
  const response = await client.request({
    method: 'POST',
    path: `${AUTHORIZATIONS}/${segment(id)}/capture`,
    body,
    prefer: FULL,
    ...extras(options),
  });
  return captureSchema.parse(response.body);
}

export async function voidAuthorization(client: ApiClient, id: string, options: CallOptions = {}): Promise<Authorization> {
  const response = await client.request({ method: 'POST', path: `${AUTHORIZATIONS}/${segment(id)}/void`, prefer: FULL, ...extras(options) });
  return authorizationSchema.parse(response.body);
}

export async function reauthorizeAuthorization(client: ApiClient, id: string, amount: Money, options: CallOptions = {}): Promise<Authorization> {
  const response = await client.request({
    method: 'POST',
    path: `${AUTHORIZATIONS}/${segment(id)}/reauthorize`,
    body: { amount },
    prefer: FULL,
    ...extras(options),
  });
  return authorizationSchema.parse(response.body);
}

export async function getCapture(client: ApiClient, id: string): Promise<Capture> {
  const response = await client.request({ method: 'GET', path: `/v2/payments/captures/${segment(id)}` });
  return captureSchema.parse(response.body);
}

export interface RefundRequest {
  amount?: Money;
  custom_id?: string;
  invoice_id?: string;
  note_to_payer?: string;
}

export async function refundCapture(client: ApiClient, id: string, body: RefundRequest, options: CallOptions = {}): Promise<Refund> {
  const response = await client.request({
    method: 'POST',
    path: `/v2/payments/captures/${segment(id)}/refund`,
    body,
    prefer: FULL,
    ...extras(options),
  });
  return refundSchema.parse(response.body);
}

export async function getRefund(client: ApiClient, id: string): Promise<Refund> {
  const response = await client.request({ method: 'GET', path: `/v2/payments/refunds/${segment(id)}` });
  return refundSchema.parse(response.body);
}

/** The id at the end of a resource's `up` link (a capture's authorization, a refund's capture). */
export function upId(resource: { links?: Array<{ rel: string; href: string }> | undefined }): string | undefined {
  const up = resource.links?.find((link) => link.rel === 'up');
  return up ? decodeURIComponent(up.href.split('/').pop() ?? '') : undefined;
}
