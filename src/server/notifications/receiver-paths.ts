// Where an event goes under a receiver address: the spec's callback paths, and the same form for the rest.

/** Marker that events written before 0.1 carried on an authorization voided because it expired. */
export const EXPIRED_REASON = 'EXPIRED';

const segment = (value: string): string => encodeURIComponent(value);

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** The capture a refund belongs to: its `up` link (`.../captures/{id}`), else the event's resource id. */
function refundedCaptureId(resource: unknown, fallback: string): string {
  const links = record(resource).links;
  if (Array.isArray(links)) {
    for (const entry of links) {
      const { rel, href } = record(entry);
      if (rel !== 'up' || typeof href !== 'string') continue;
      const match = /\/captures\/([^/?#]+)/.exec(href);
      if (match?.[1]) return decodeURIComponent(match[1]);
    }
  }
  const captureId = record(resource).capture_id;
  return typeof captureId === 'string' && captureId.length > 0 ? captureId : fallback;
}

/**
 * An authorization voided because it expired: VOIDED at or after its expiration_time (an explicit
 * void happens before it; status_details has no reason for expiry in the API's enumeration).
 */
export function voidedExpired(resource: unknown): boolean {
  const { status, expiration_time: expires, update_time: updated, status_details: details } = record(resource);
  if (record(details).reason === EXPIRED_REASON) return true;
  return status === 'VOIDED' && typeof expires === 'string' && typeof updated === 'string' && Date.parse(updated) >= Date.parse(expires);
}

const FIXED: Record<string, (id: string) => string> = {
  'PAYMENT.CAPTURE.COMPLETED': (id) => `captures/${segment(id)}`,
  'PAYMENT.CAPTURE.DECLINED': (id) => `captures/${segment(id)}/declined`,
  'PAYMENT.CAPTURE.PENDING': (id) => `captures/${segment(id)}/pending`,
  'PAYMENT.CAPTURE.DENIED': (id) => `captures/${segment(id)}/denied`,
  'PAYMENT.CAPTURE.REVERSED': (id) => `captures/${segment(id)}/reversed`,
  'PAYMENT.AUTHORIZATION.CREATED': (id) => `authorizations/${segment(id)}`,
};

const BY_PREFIX: Array<[string, string]> = [
  ['CHECKOUT.ORDER.', 'orders'],
  ['CUSTOMER.DISPUTE.', 'disputes'],
  ['RISK.DISPUTE.', 'disputes'],
  ['PAYMENT.PAYOUTSBATCH.', 'payouts'],
  ['PAYMENT.PAYOUTS-ITEM.', 'payouts-items'],
  ['INVOICING.INVOICE.', 'invoices'],
];

/**
 * The path, relative to the receiver address, that an event is posted to. `resourceId` is the id
 * the emitting domain recorded with the event (capture, authorization, refund, batch, ...).
 */
export function receiverPath(eventType: string, resourceType: string, resourceId: string, resource: unknown): string {
  const fixed = FIXED[eventType];
  if (fixed) return fixed(resourceId);
  if (eventType === 'PAYMENT.CAPTURE.REFUNDED') return `captures/${segment(refundedCaptureId(resource, resourceId))}/refunds`;
  if (eventType === 'PAYMENT.AUTHORIZATION.VOIDED') {
    return `authorizations/${segment(resourceId)}/${voidedExpired(resource) ? 'void-expired' : 'void'}`;
  }
  for (const [prefix, collection] of BY_PREFIX) {
    if (eventType.startsWith(prefix)) return `${collection}/${segment(resourceId)}`;
  }
  // An event type added later by another domain: the same form, named after its resource type.
  return `${segment(resourceType.toLowerCase() || 'events')}/${segment(resourceId)}`;
}

/** The receiver address joined with a relative path; the address's own path and query are kept. */
export function joinReceiverUrl(receiverAddress: string, path: string): string {
  const url = new URL(receiverAddress);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/${path}`;
  url.hash = '';
  return url.toString();
}
