// POST /v1/notifications/verify-webhook-signature: SUCCESS only for a delivery exactly as the server signed it.

import { isDeepStrictEqual } from 'node:util';
import type { Queryable } from '../db/schema.js';
import { AUTH_ALGO, certIdOf, verifyTransmission, type SigningKeys } from './signing.js';
import * as store from './store.js';

export interface VerifyInput {
  auth_algo: string;
  cert_url: string;
  transmission_id: string;
  transmission_sig: string;
  transmission_time: string;
  webhook_id: string;
  webhook_event: Record<string, unknown>;
}

export type VerificationStatus = 'SUCCESS' | 'FAILURE';

/**
 * The bytes the signature covers. The caller sends the event parsed, so the server uses the exact
 * body it stored when the event is one of this account's and the posted event equals it (key
 * order and spacing aside); otherwise the posted event as JSON, which is how the server serialises.
 */
async function signedBody(db: Queryable, accountId: string, event: Record<string, unknown>): Promise<string> {
  const posted = JSON.stringify(event);
  const id = event.id;
  if (typeof id !== 'string') return posted;
  const stored = (await store.findEvent(db, accountId, id))?.body ?? (await store.mockEventBody(db, accountId, id));
  if (stored === undefined) return posted;
  return isDeepStrictEqual(JSON.parse(stored), event) ? stored : posted;
}

export async function verifyWebhookSignature(
  db: Queryable,
  keys: SigningKeys,
  accountId: string,
  input: VerifyInput,
): Promise<{ verification_status: VerificationStatus }> {
  const failure = { verification_status: 'FAILURE' } as const;
  if (input.auth_algo !== AUTH_ALGO) return failure;
  const certId = certIdOf(input.cert_url);
  const key = certId === undefined ? undefined : await keys.byId(certId);
  if (!key) return failure;
  const body = await signedBody(db, accountId, input.webhook_event);
  const genuine = verifyTransmission(
    key.certificate,
    { transmissionId: input.transmission_id, transmissionTime: input.transmission_time, webhookId: input.webhook_id },
    body,
    input.transmission_sig,
  );
  return genuine ? { verification_status: 'SUCCESS' } : failure;
}
