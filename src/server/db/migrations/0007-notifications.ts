// Webhook subscriptions, the delivery queue fed from the event outbox, attempts, and the signing key.

import type { Migration } from './types.js';

export const notificationsMigration: Migration = {
  id: 7,
  name: 'notifications',
  statements: [
    `CREATE TABLE webhook_subscriptions (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
      url TEXT NOT NULL,
      event_types TEXT NOT NULL,
      base_url TEXT NOT NULL,
      from_seq INTEGER NOT NULL,
      create_time TEXT NOT NULL,
      update_time TEXT NOT NULL
    )`,
    `CREATE INDEX webhook_subscriptions_owner ON webhook_subscriptions(account_id, app_id, create_time)`,
    `CREATE TABLE webhook_deliveries (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      event_id TEXT NOT NULL,
      event_seq INTEGER,
      event_type TEXT NOT NULL,
      resource_id TEXT NOT NULL,
      webhook_id TEXT,
      signing_webhook_id TEXT NOT NULL,
      target_url TEXT,
      receiver_path TEXT NOT NULL,
      cert_base_url TEXT NOT NULL,
      kind TEXT NOT NULL,
      mock_body TEXT,
      status TEXT NOT NULL,
      attempt_count INTEGER NOT NULL,
      next_attempt_at TEXT,
      last_status_code INTEGER,
      last_error TEXT,
      create_time TEXT NOT NULL,
      update_time TEXT NOT NULL
    )`,
    `CREATE INDEX webhook_deliveries_due ON webhook_deliveries(status, account_id, next_attempt_at)`,
    `CREATE INDEX webhook_deliveries_order ON webhook_deliveries(webhook_id, resource_id, event_seq)`,
    `CREATE INDEX webhook_deliveries_event ON webhook_deliveries(account_id, event_id)`,
    `CREATE INDEX webhook_deliveries_recent ON webhook_deliveries(account_id, create_time)`,
    `CREATE TABLE webhook_attempts (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      delivery_id TEXT NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      attempt_number INTEGER NOT NULL,
      attempt_time TEXT NOT NULL,
      url TEXT NOT NULL,
      transmission_id TEXT NOT NULL,
      status_code INTEGER,
      error TEXT,
      duration_ms INTEGER NOT NULL
    )`,
    `CREATE INDEX webhook_attempts_delivery ON webhook_attempts(delivery_id, attempt_number)`,
    `CREATE TABLE webhook_dispatch_cursor (name TEXT PRIMARY KEY, last_seq INTEGER NOT NULL)`,
    `INSERT INTO webhook_dispatch_cursor (name, last_seq) VALUES ('events', 0)`,
    `CREATE TABLE webhook_signing_keys (
      id TEXT PRIMARY KEY,
      private_key_pem TEXT NOT NULL,
      certificate_pem TEXT NOT NULL,
      create_time TEXT NOT NULL
    )`,
  ],
};
