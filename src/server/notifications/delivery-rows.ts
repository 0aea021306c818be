// New delivery rows, as the fan-out, a resend and a simulation make them: waiting (PENDING), their
// first attempt due at once.

import { prefixedId, type IdGenerator } from '../core/ids.js';
import type { DeliveryRow, SubscriptionRow } from './store.js';

/** What tells one delivery from another: the event, where it goes, how it is signed. */
export type DeliveryTarget = Pick<
  DeliveryRow,
  'event_id' | 'event_seq' | 'event_type' | 'resource_id' | 'webhook_id' | 'signing_webhook_id' | 'target_url' | 'receiver_path' | 'cert_base_url' | 'kind' | 'mock_body'
>;

export function newDelivery(ids: IdGenerator, accountId: string, now: string, target: DeliveryTarget): DeliveryRow {
  return {
    ...target,
    id: prefixedId(ids, 'DLV', 20),
    account_id: accountId,
    status: 'PENDING',
    attempt_count: 0n,
    next_attempt_at: now,
    last_status_code: null,
    last_error: null,
    create_time: now,
    update_time: now,
  };
}

/** A stored event to a subscription, signed with its webhook id, to the receiver path of the event. */
export function eventTarget(
  event: { id: string; seq: bigint; event_type: string; resource_id: string },
  sub: SubscriptionRow,
  receiverPath: string,
  kind: 'EVENT' | 'RESEND',
): DeliveryTarget {
  return {
    event_id: event.id,
    event_seq: event.seq,
    event_type: event.event_type,
    resource_id: event.resource_id,
    webhook_id: sub.id,
    signing_webhook_id: sub.id,
    target_url: null,
    receiver_path: receiverPath,
    cert_base_url: sub.base_url,
    kind,
    mock_body: null,
  };
}
