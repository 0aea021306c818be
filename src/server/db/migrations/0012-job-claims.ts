// Background work that any number of servers on one database share: the outbox fan-out is claimed
// per event (a flag, not a cursor: on PostgreSQL sequence values commit out of order, so a cursor
// would skip an event that commits after a higher one was fanned out), webhook deliveries are
// leased by the server attempting them, and per-pass jobs take a named lease.

import type { Migration } from './types.js';

/** The cursor's position becomes the flag: events at or before it were fanned out, later ones were not. */
const FAN_OUT_BACKFILL = `UPDATE events SET fanned_out = 1
  WHERE seq <= (SELECT last_seq FROM webhook_dispatch_cursor WHERE name = 'events')`;

export const jobClaimsMigration: Migration = {
  id: 12,
  name: 'job-claims',
  statements: [
    // New events are not fanned out yet (the default); existing ones are, up to the old cursor.
    `ALTER TABLE events ADD COLUMN fanned_out INTEGER NOT NULL DEFAULT 0`,
    FAN_OUT_BACKFILL,
    `CREATE INDEX events_unfanned ON events(seq) WHERE fanned_out = 0`,
    `DROP TABLE webhook_dispatch_cursor`,
    // Lease holder and its end, in milliseconds of real time (not an account's clock).
    `ALTER TABLE webhook_deliveries ADD COLUMN lease_owner TEXT`,
    `ALTER TABLE webhook_deliveries ADD COLUMN lease_until INTEGER`,
    `CREATE TABLE job_leases (name TEXT PRIMARY KEY, owner TEXT NOT NULL, until INTEGER NOT NULL)`,
  ],
};
