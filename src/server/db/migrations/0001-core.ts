// Accounts, apps, tokens, consents, idempotency records and the event outbox.

import type { Migration } from './types.js';

export const coreMigration: Migration = {
  id: 1,
  name: 'core',
  statements: [
    `CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
    `CREATE TABLE accounts (
      id TEXT PRIMARY KEY,
      email TEXT NOT NULL UNIQUE,
      is_default INTEGER NOT NULL DEFAULT 0,
      clock_offset_ms INTEGER NOT NULL DEFAULT 0,
      kyc_status TEXT NOT NULL DEFAULT 'VERIFIED',
      created_at TEXT NOT NULL
    )`,
    `CREATE TABLE apps (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      name TEXT NOT NULL,
      client_id TEXT NOT NULL UNIQUE,
      secret_hash TEXT NOT NULL,
      is_default INTEGER NOT NULL DEFAULT 0,
      created_at TEXT NOT NULL
    )`,
    `CREATE INDEX apps_account ON apps(account_id)`,
    `CREATE TABLE access_tokens (
      token_hash TEXT PRIMARY KEY,
      app_id TEXT NOT NULL REFERENCES apps(id) ON DELETE CASCADE,
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      scope TEXT NOT NULL,
      expires_at TEXT NOT NULL,
      created_at TEXT NOT NULL
    )`,
    `CREATE INDEX access_tokens_app ON access_tokens(app_id)`,
    `CREATE TABLE consents (
      platform_client_id TEXT NOT NULL,
      payer_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      created_at TEXT NOT NULL,
      PRIMARY KEY (platform_client_id, payer_id)
    )`,
    `CREATE TABLE idempotency_keys (
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      operation TEXT NOT NULL,
      request_key TEXT NOT NULL,
      request_hash TEXT NOT NULL,
      status_code INTEGER NOT NULL,
      response_body TEXT NOT NULL,
      created_at TEXT NOT NULL,
      expires_at TEXT NOT NULL,
      PRIMARY KEY (account_id, operation, request_key)
    )`,
    `CREATE INDEX idempotency_keys_expiry ON idempotency_keys(expires_at)`,
    `CREATE TABLE events (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL UNIQUE,
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      event_type TEXT NOT NULL,
      resource_type TEXT NOT NULL,
      resource_id TEXT NOT NULL,
      create_time TEXT NOT NULL,
      body TEXT NOT NULL
    )`,
    `CREATE INDEX events_account_time ON events(account_id, create_time)`,
    `CREATE INDEX events_resource ON events(resource_id)`,
  ],
};
