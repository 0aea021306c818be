// Shipment trackers of checkout orders, and webhook lookups (which app an account's events go to).

import type { Migration } from './types.js';

export const trackersLookupsMigration: Migration = {
  id: 11,
  name: 'order-trackers-webhook-lookups',
  statements: [
    `CREATE TABLE order_trackers (
      id TEXT NOT NULL,
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      order_id TEXT NOT NULL,
      capture_id TEXT NOT NULL,
      status TEXT NOT NULL,
      details TEXT NOT NULL,
      create_time TEXT NOT NULL,
      update_time TEXT NOT NULL,
      PRIMARY KEY (account_id, id)
    )`,
    `CREATE INDEX order_trackers_order ON order_trackers(account_id, order_id, create_time)`,
    `CREATE TABLE webhook_lookups (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
      client_id TEXT NOT NULL,
      create_time TEXT NOT NULL,
      UNIQUE (account_id, app_id)
    )`,
  ],
};
