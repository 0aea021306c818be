// The database's table types. Each domain adds its own tables by augmenting `Database` in its store.

import type { Generated, Kysely, Transaction } from 'kysely';

/**
 * A table whose `seq` the database assigns on insert (an identity column on PostgreSQL, SQLite's
 * rowid alias): rows read carry it, rows written never name it.
 */
export type WithSeq<R> = R & { seq: Generated<bigint> };

/** Every INTEGER column is read as bigint (better-sqlite3 safe integers), so amounts never lose digits. */
export interface Database {
  schema_migrations: { id: bigint; name: string; applied_at: string };
  settings: { key: string; value: string };
  accounts: {
    id: string;
    email: string;
    is_default: bigint;
    clock_offset_ms: bigint;
    kyc_status: string;
    created_at: string;
    /** How many fault rules the merchant has (kept by the faults domain with the rules). */
    fault_rule_count: Generated<bigint>;
  };
  apps: {
    id: string;
    account_id: string;
    name: string;
    client_id: string;
    secret_hash: string;
    is_default: bigint;
    created_at: string;
  };
  access_tokens: {
    token_hash: string;
    app_id: string;
    account_id: string;
    scope: string;
    expires_at: string;
    created_at: string;
  };
  consents: { platform_client_id: string; payer_id: string; created_at: string };
  idempotency_keys: {
    account_id: string;
    operation: string;
    request_key: string;
    request_hash: string;
    status_code: bigint;
    response_body: string;
    created_at: string;
    expires_at: string;
  };
  events: {
    seq: Generated<bigint>;
    id: string;
    account_id: string;
    event_type: string;
    resource_type: string;
    resource_id: string;
    create_time: string;
    body: string;
    /** 0 until the webhook fan-out has made the event's deliveries (migration 0012). */
    fanned_out: Generated<bigint>;
  };
  job_leases: { name: string; owner: string; until: bigint };
}

export type Db = Kysely<Database>;
export type Trx = Transaction<Database>;
/** Anything queries can run on: the database or an open transaction. */
export type Queryable = Kysely<Database>;
