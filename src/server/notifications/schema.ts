// Request schemas of the notifications API.

import { z } from 'zod';
import { queryInteger, utcTimestampSchema } from '../http/validation.js';
import { DELIVERY_STATUSES } from './states.js';


const eventTypeName = z.string().min(1).max(100);

export const createWebhookSchema = z.object({
  url: z.string().min(1).max(2048),
  event_types: z.array(z.object({ name: eventTypeName }).loose()).min(1).max(500),
});

export const eventTypesValueSchema = createWebhookSchema.shape.event_types;
export const urlValueSchema = createWebhookSchema.shape.url;

export const patchSchema = z
  .array(
    z.object({
      op: z.enum(['add', 'remove', 'replace', 'move', 'copy', 'test']),
      path: z.string().min(1).max(100),
      value: z.unknown().optional(),
      from: z.string().optional(),
    }),
  )
  .min(1)
  .max(10);

export const listWebhooksQuerySchema = z.object({
  anchor_type: z.enum(['APPLICATION', 'ACCOUNT']).default('APPLICATION'),
});

/** Webhook and event ids: letters, digits, `-` and `_` (real event ids are `WH-...`). */
const resourceId = z.string().min(1).max(255).regex(/^[A-Za-z0-9_-]+$/);

export const webhookPathSchema = z.object({ webhook_id: resourceId });
export const lookupPathSchema = z.object({ webhook_lookup_id: resourceId });
/** A lookup takes no input: it is the calling app's (id and client_id are read-only). */
export const createLookupSchema = z.object({}).loose();
export const eventPathSchema = z.object({ event_id: resourceId });
export const certPathSchema = z.object({ cert_id: resourceId });

const timestamp = utcTimestampSchema();

export const listEventsQuerySchema = z
  .object({
    page_size: queryInteger(1, 300).default(10),
    start_time: timestamp.optional(),
    end_time: timestamp.optional(),
    transaction_id: z.string().min(1).max(255).optional(),
    event_type: eventTypeName.optional(),
    next_page_token: z.string().min(1).max(200).optional(),
  })
  .refine((query) => !query.start_time || !query.end_time || query.start_time <= query.end_time, {
    path: ['end_time'],
    message: 'end_time must not be before start_time.',
    params: { issue: 'INVALID_PARAMETER_VALUE' },
  });

export const resendSchema = z.object({
  webhook_ids: z.array(resourceId).max(500).optional(),
});

export const simulateSchema = z
  .object({
    webhook_id: resourceId.max(50).optional(),
    url: z.string().min(1).max(2048).optional(),
    event_type: z.string().min(1).max(50).regex(/^[A-Za-z0-9.-]+$/),
    resource_version: z.string().min(1).max(50).optional(),
  })
  .refine((body) => body.webhook_id !== undefined || body.url !== undefined, {
    path: ['webhook_id'],
    message: 'Give webhook_id or url.',
    params: { issue: 'MISSING_REQUIRED_PARAMETER' },
  });

export const verifySchema = z.object({
  auth_algo: z.string().min(1).max(100),
  cert_url: z.string().min(1).max(500),
  transmission_id: z.string().min(1).max(50),
  transmission_sig: z.string().min(1).max(500),
  transmission_time: z.string().min(1).max(100),
  webhook_id: z.string().min(1).max(50),
  webhook_event: z.record(z.string(), z.unknown()),
});

export const listDeliveriesQuerySchema = z.object({
  event_id: resourceId.optional(),
  webhook_id: resourceId.optional(),
  status: z.enum(DELIVERY_STATUSES as [string, ...string[]]).optional(),
  page_size: queryInteger(1, 500).default(100),
});

