// /v2/payments: authorizations, captures and refunds, one typed function per endpoint.

import { z } from 'zod';
import type { Money } from '../money.js';
import { call } from './call.js';
import type { ApiClient } from './client.js';
import { linkSchema, moneySchema, timestamps } from './types.js';

const statusDetailsSchema = z.looseObject({ reason: z.string().optional() });
const relatedSchema = z.looseObject({
  related_ids: z.looseObject({ order_id: z.string().optional(), authorization_id: z.string().optional() }).optional(),
});
/** The merchant's own references, which authorizations, captures and refunds all carry. */
const merchantReferences = { invoice_id: z.string().optional(), custom_id: z.string().optional() };

export const authorizationSchema = z.looseObject({
  id: z.string(),
  status: z.string(),
  status_details: statusDetailsSchema.optional(),
  amount: moneySchema.optional(),
  ...merchantReferences,
  expiration_time: z.string().optional(),
  ...timestamps,
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
  ...merchantReferences,
  seller_receivable_breakdown: z
    .looseObject({ gross_amount: moneySchema, paypal_fee: moneySchema.optional(), net_amount: moneySchema.optional() })
    .optional(),
  ...timestamps,
  supplementary_data: relatedSchema.optional(),
  links: z.array(linkSchema).optional(),
});
export type Capture = z.infer<typeof captureSchema>;

export const refundSchema = z.looseObject({
  id: z.string(),
  status: z.string(),
  amount: moneySchema.optional(),
  ...merchantReferences,
  note_to_payer: z.string().optional(),
  seller_payable_breakdown: z
    .looseObject({
      gross_amount: moneySchema.optional(),
      paypal_fee: moneySchema.optional(),
      net_amount: moneySchema.optional(),
      total_refunded_amount: moneySchema.optional(),
    })
    .optional(),
  ...timestamps,
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

export async function getAuthorization(client: ApiClient, id: string): Promise<Authorization> {
  return call(client, authorizationSchema, { method: 'GET', path: `${AUTHORIZATIONS}/${segment(id)}` });
}

export interface CaptureRequest {
  amount?: Money;
  final_capture?: boolean;
  invoice_id?: string;
  note_to_payer?: string;
  soft_descriptor?: string;
}

/** A POST that answers the resource in full; the request id and extra headers come from `options`. */
function post<S extends z.ZodType>(client: ApiClient, schema: S, path: string, body: unknown, options: CallOptions): Promise<z.output<S>> {
  return call(client, schema, { method: 'POST', path, body, prefer: FULL, requestId: options.requestId, headers: options.headers });
}

export async function captureAuthorization(client: ApiClient, id: string, body: CaptureRequest, options: CallOptions = {}): Promise<Capture> {
  return post(client, captureSchema, `${AUTHORIZATIONS}/${segment(id)}/capture`, body, options);
}

export async function voidAuthorization(client: ApiClient, id: string, options: CallOptions = {}): Promise<Authorization> {
  return post(client, authorizationSchema, `${AUTHORIZATIONS}/${segment(id)}/void`, undefined, options);
}

export async function reauthorizeAuthorization(client: ApiClient, id: string, amount: Money, options: CallOptions = {}): Promise<Authorization> {
  return post(client, authorizationSchema, `${AUTHORIZATIONS}/${segment(id)}/reauthorize`, { amount }, options);
}

export async function getCapture(client: ApiClient, id: string): Promise<Capture> {
  return call(client, captureSchema, { method: 'GET', path: `/v2/payments/captures/${segment(id)}` });
}

export interface RefundRequest {
  amount?: Money;
  custom_id?: string;
  invoice_id?: string;
  note_to_payer?: string;
}

export async function refundCapture(client: ApiClient, id: string, body: RefundRequest, options: CallOptions = {}): Promise<Refund> {
  return post(client, refundSchema, `/v2/payments/captures/${segment(id)}/refund`, body, options);
}

export async function getRefund(client: ApiClient, id: string): Promise<Refund> {
  return call(client, refundSchema, { method: 'GET', path: `/v2/payments/refunds/${segment(id)}` });
}

/** The id at the end of a resource's `up` link (a capture's authorization, a refund's capture). */
export function upId(resource: { links?: Array<{ rel: string; href: string }> | undefined }): string | undefined {
  const up = resource.links?.find((link) => link.rel === 'up');
  return up ? decodeURIComponent(up.href.split('/').pop() ?? '') : undefined;
}
