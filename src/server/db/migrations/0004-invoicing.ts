// Invoice templates, invoices with their number counter, and the e-mail outbox that sending fills.

import type { Migration } from './types.js';

export const invoicingMigration: Migration = {
  id: 4,
  name: 'invoicing',
  statements: [
    `CREATE TABLE invoice_templates (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      name TEXT NOT NULL,
      is_default INTEGER NOT NULL DEFAULT 0,
      is_standard INTEGER NOT NULL DEFAULT 0,
      body TEXT NOT NULL,
      create_time TEXT NOT NULL,
      update_time TEXT NOT NULL
    )`,
    `CREATE UNIQUE INDEX invoice_templates_name ON invoice_templates(account_id, name)`,
    `CREATE INDEX invoice_templates_account ON invoice_templates(account_id, create_time, id)`,
    `CREATE TABLE invoices (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      invoice_number TEXT NOT NULL,
      status TEXT NOT NULL,
      currency TEXT NOT NULL,
      total_minor INTEGER NOT NULL,
      paid_minor INTEGER NOT NULL DEFAULT 0,
      refunded_minor INTEGER NOT NULL DEFAULT 0,
      invoice_date TEXT NOT NULL,
      due_date TEXT,
      recipient_email TEXT,
      recipient_given_name TEXT,
      recipient_surname TEXT,
      recipient_business_name TEXT,
      reference TEXT,
      memo TEXT,
      body TEXT NOT NULL,
      transactions TEXT NOT NULL,
      create_time TEXT NOT NULL,
      update_time TEXT NOT NULL,
      first_sent_time TEXT,
      last_sent_time TEXT,
      cancel_time TEXT
    )`,
    `CREATE UNIQUE INDEX invoices_number ON invoices(account_id, invoice_number)`,
    // Newest first, ties broken by id: the list's order, walked without touching the table.
    `CREATE INDEX invoices_account_created ON invoices(account_id, create_time DESC, id DESC)`,
    `CREATE INDEX invoices_scheduled ON invoices(status, invoice_date)`,
    `CREATE TABLE invoice_number_counters (
      account_id TEXT PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
      last_number INTEGER NOT NULL
    )`,
    `CREATE TABLE email_outbox (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL UNIQUE,
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      invoice_id TEXT,
      kind TEXT NOT NULL,
      to_address TEXT NOT NULL,
      subject TEXT NOT NULL,
      body TEXT NOT NULL,
      create_time TEXT NOT NULL
    )`,
    `CREATE INDEX email_outbox_account ON email_outbox(account_id, seq)`,
  ],
  postgresOnly: [
    // SQLite's json_valid for the audit's invoice checks (audit/invoice-checks.ts): the text as jsonb,
    // or NULL when it is not JSON (PostgreSQL 15 has no pg_input_is_valid).
    `CREATE FUNCTION payctl_try_jsonb(value TEXT) RETURNS JSONB LANGUAGE plpgsql IMMUTABLE AS $$
    BEGIN
      RETURN value::jsonb;
    EXCEPTION WHEN others THEN
      RETURN NULL;
    END
    $$`,
  ],
};
