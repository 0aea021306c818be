// A capture lost to a dispute was stored as REVERSED, which is not one of the API's six capture
// statuses. It is REFUNDED now, its reason (BUYER_COMPLAINT or CHARGEBACK) kept in status_reason;
// PAYMENT.CAPTURE.REVERSED and the dispute carry the reversal.

import type { Migration } from './types.js';

export const capturesReversedAsRefundedMigration: Migration = {
  id: 10,
  name: 'captures-reversed-as-refunded',
  statements: [
    `UPDATE captures SET status = 'REFUNDED', status_reason = COALESCE(status_reason, 'BUYER_COMPLAINT') WHERE status = 'REVERSED'`,
  ],
};
