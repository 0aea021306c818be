// Named leases for background passes that must run once whichever server runs them: one
// conditional upsert takes a lease that is free, expired or already ours, on SQLite and PostgreSQL
// alike (`INSERT ... ON CONFLICT DO UPDATE ... WHERE ... RETURNING`).

import { randomUUID } from 'node:crypto';
import type { Trx } from './schema.js';
import type { Storage, TxOptions } from './storage.js';

/** This server's identity as a lease holder: random per start, so a restarted server is a new holder. */
export function newLeaseOwner(): string {
  return `${process.pid}-${randomUUID()}`;
}

/** Takes (or renews) the lease `name` until `until` (ms) unless another owner holds it past `now`. */
export async function takeJobLease(trx: Trx, name: string, owner: string, now: number, until: number): Promise<boolean> {
  const row = await trx
    .insertInto('job_leases')
    .values({ name, owner, until: BigInt(until) })
    .onConflict((conflict) =>
      conflict
        .column('name')
        .doUpdateSet({ owner, until: BigInt(until) })
        .where((eb) => eb.or([eb('job_leases.until', '<', BigInt(now)), eb('job_leases.owner', '=', owner)])),
    )
    .returning('owner')
    .executeTakeFirst();
  return row?.owner === owner;
}

/** Gives the lease up at once (when the pass is done), so the next pass may run anywhere. */
export async function releaseJobLease(trx: Trx, name: string, owner: string): Promise<void> {
  await trx.updateTable('job_leases').set({ until: 0n }).where('name', '=', name).where('owner', '=', owner).execute();
}

/**
 * `Storage.withJobLease` for an adapter (one runner per server start): runs `work` while holding
 * the lease, taken and given back in transactions of their own (`work` opens its own).
 */
export function jobLeaseRunner(owner: string) {
  const opts = (name: string): TxOptions => ({ name: `job-lease:${name}` });
  return async (storage: Pick<Storage, 'transaction'>, name: string, ttlMs: number, work: () => Promise<void>): Promise<boolean> => {
    const now = Date.now();
    const taken = await storage.transaction(opts(name), (trx) => takeJobLease(trx, name, owner, now, now + ttlMs));
    if (!taken) return false;
    try {
      await work();
    } finally {
      await storage.transaction(opts(name), (trx) => releaseJobLease(trx, name, owner));
    }
    return true;
  };
}
