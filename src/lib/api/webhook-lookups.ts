// /v1/notifications/webhooks-lookup: one typed function per endpoint.

import { z } from 'zod';
import type { ApiClient } from './client.js';
import { linkSchema } from './types.js';

const LOOKUPS = '/v1/notifications/webhooks-lookup';

const lookupSchema = z.looseObject({ id: z.string(), client_id: z.string(), links: z.array(linkSchema).default([]) });
export type WebhookLookup = z.infer<typeof lookupSchema>;
const lookupListSchema = z.looseObject({ webhooks_lookups: z.array(lookupSchema).default([]) });
export type WebhookLookupList = z.infer<typeof lookupListSchema>;

const withRequestId = (requestId: string | undefined) => (requestId ? { requestId } : {});

export async function createWebhookLookup(client: ApiClient, options: { requestId?: string } = {}): Promise<WebhookLookup> {
  const response = await client.request({ method: 'POST', path: LOOKUPS, body: {}, ...withRequestId(options.requestId) });
  return lookupSchema.parse(response.body);
}

export async function listWebhookLookups(client: ApiClient): Promise<WebhookLookupList> {
  const response = await client.request({ method: 'GET', path: LOOKUPS });
  return lookupListSchema.parse(response.body);
}

export async function getWebhookLookup(client: ApiClient, id: string): Promise<WebhookLookup> {
  const response = await client.request({ method: 'GET', path: `${LOOKUPS}/${encodeURIComponent(id)}` });
  return lookupSchema.parse(response.body);
}

export async function deleteWebhookLookup(client: ApiClient, id: string, options: { requestId?: string } = {}): Promise<void> {
  await client.request({ method: 'DELETE', path: `${LOOKUPS}/${encodeURIComponent(id)}`, ...withRequestId(options.requestId) });
}
