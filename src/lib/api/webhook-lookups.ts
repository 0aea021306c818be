// /v1/notifications/webhooks-lookup: one typed function per endpoint.

import { z } from 'zod';
import { call } from './call.js';
import type { ApiClient } from './client.js';
import { linkSchema } from './types.js';

const LOOKUPS = '/v1/notifications/webhooks-lookup';

const lookupSchema = z.looseObject({ id: z.string(), client_id: z.string(), links: z.array(linkSchema).default([]) });
export type WebhookLookup = z.infer<typeof lookupSchema>;
const lookupListSchema = z.looseObject({ webhooks_lookups: z.array(lookupSchema).default([]) });
export type WebhookLookupList = z.infer<typeof lookupListSchema>;

export async function createWebhookLookup(client: ApiClient, options: { requestId?: string } = {}): Promise<WebhookLookup> {
  return call(client, lookupSchema, { method: 'POST', path: LOOKUPS, body: {}, requestId: options.requestId });
}

export async function listWebhookLookups(client: ApiClient): Promise<WebhookLookupList> {
  return call(client, lookupListSchema, { method: 'GET', path: LOOKUPS });
}

export async function getWebhookLookup(client: ApiClient, id: string): Promise<WebhookLookup> {
  return call(client, lookupSchema, { method: 'GET', path: `${LOOKUPS}/${encodeURIComponent(id)}` });
}

export async function deleteWebhookLookup(client: ApiClient, id: string, options: { requestId?: string } = {}): Promise<void> {
  await client.request({ method: 'DELETE', path: `${LOOKUPS}/${encodeURIComponent(id)}`, requestId: options.requestId });
}
