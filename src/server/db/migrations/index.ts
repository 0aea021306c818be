// Every migration, in order. Add new ones at the end with the next number.

import { coreMigration } from './0001-core.js';
import { ledgerMigration } from './0002-ledger.js';
import { disputesMigration } from './0005-disputes.js';
import { notificationsMigration } from './0007-notifications.js';
import { invoicingMigration } from './0004-invoicing.js';
import { invoiceViewsMigration } from './0008-invoice-views.js';
import { paymentsMigration } from './0003-payments.js';
import { payoutsMigration } from './0006-payouts.js';
import { requestIdExpiryMigration } from './0009-request-id-expiry.js';
import { trackersLookupsMigration } from './0011-order-trackers-webhook-lookups.js';
import { capturesReversedAsRefundedMigration } from './0010-captures-reversed-as-refunded.js';
import { jobClaimsMigration } from './0012-job-claims.js';
import { reportingMigration } from './0013-reporting.js';
import { requestJournalFaultsMigration } from './0014-request-journal-faults.js';
import { accountFaultRulesMigration } from './0015-account-fault-rules.js';
import { requestJournalCountsMigration } from './0016-request-journal-counts.js';
import { pendingDeliveriesMigration } from './0017-pending-deliveries.js';
import type { Migration } from './types.js';

export const MIGRATIONS: readonly Migration[] = [
  coreMigration,
  ledgerMigration,
  paymentsMigration, // 0003 payments and orders
  // 0004 invoicing
  invoicingMigration,
  disputesMigration, // 0005 disputes
  payoutsMigration, // 0006 payouts
  notificationsMigration,
  invoiceViewsMigration, // 0008 invoice view templates
  requestIdExpiryMigration, // 0009 the request-id purge's index
  trackersLookupsMigration, // 0011 order trackers, webhook lookups
  capturesReversedAsRefundedMigration, // 0010 no REVERSED capture status
  jobClaimsMigration, // 0012 fan-out flag, delivery leases, job leases
  reportingMigration, // 0013 what the transaction report needs of each balance movement
  requestJournalFaultsMigration, // 0014 request journal, fault rules
  accountFaultRulesMigration, // 0015 each account's count of fault rules
  requestJournalCountsMigration, // 0016 each merchant's count of journal entries
  pendingDeliveriesMigration, // 0017 pending webhook deliveries by due time
].sort((a, b) => a.id - b.id);
