// Delivery statuses and the only moves between them.

export type DeliveryStatus = 'PENDING' | 'DELIVERED' | 'FAILED' | 'GONE' | 'CANCELLED';

export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['PENDING', 'DELIVERED', 'FAILED', 'GONE', 'CANCELLED'];

/**
 * PENDING: waiting for its first or next attempt. DELIVERED: a 2xx answer. FAILED: no 2xx after
 * the last scheduled attempt. GONE: the receiver answered 410, so no more attempts. CANCELLED: its
 * subscription was deleted before it was delivered.
 */
export const DELIVERY_TRANSITIONS: Record<DeliveryStatus, readonly DeliveryStatus[]> = {
  PENDING: ['PENDING', 'DELIVERED', 'FAILED', 'GONE', 'CANCELLED'],
  DELIVERED: [],
  FAILED: [],
  GONE: [],
  CANCELLED: [],
};

export function canTransition(from: DeliveryStatus, to: DeliveryStatus): boolean {
  return DELIVERY_TRANSITIONS[from].includes(to);
}
