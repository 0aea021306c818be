// The webhook dispatcher asks, ten times a second while it has nothing to send, whether any pending
// delivery is due by the latest of the accounts' clocks (notifications/store.ts `anyDeliveryDue`).
// webhook_deliveries_due orders each status by account before due time, so that question walked
// every pending delivery, retries scheduled days ahead included. This index, of pending deliveries
// only, by due time, answers it from its first entry. Its status column (one value) is there so
// that SQLite, without statistics, prefers it to webhook_deliveries_due, which also leads with it.

import type { Migration } from './types.js';

export const pendingDeliveriesMigration: Migration = {
  id: 17,
  name: 'pending-deliveries',
  statements: [`CREATE INDEX webhook_deliveries_pending_due ON webhook_deliveries(status, next_attempt_at) WHERE status = 'PENDING'`],
};
