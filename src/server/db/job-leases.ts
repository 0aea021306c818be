// Named leases for background passes that must run once whichever server runs them: one
// conditional upsert takes a lease that is free, expired or already ours, on SQLite and PostgreSQL
// alike (`INSERT ... ON CONFLICT DO UPDATE ... WHERE ... RETURNING`).

import { randomUUID } from 'node:crypto';
import type { Trx } from './schema.js';
import type { Storage } from './storage.js';

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

/**
 * `Storage.withJobLease` for an adapter (one runner per server start). The lease stays with its
 * holder, who renews it when less than half of it is left, so a pass costs the holder a write only
 * now and then and the others one read: every pass writing would keep two servers on one SQLite
 * file contending for its write lock. The holder runs each pass; a holder that dies (or stops)
 * hands over when its lease runs out. A pass must take less than half of `ttlMs`.
 */
export function jobLeaseRunner(owner: string) {
  return async (storage: Pick<Storage, 'db' | 'transaction'>, name: string, ttlMs: number, work: () => Promise<void>): Promise<boolean> => {
    const now = Date.now();
    const held = await storage.db.selectFrom('job_leases').select(['owner', 'until']).where('name', '=', name).executeTakeFirst();
    if (held && held.owner !== owner && Number(held.until) > now) return false;
    const fresh = held !== undefined && held.owner === owner && Number(held.until) - now >= ttlMs / 2;
    if (!fresh) {
      const taken = await storage.transaction({ name: `job-lease:${name}` }, (trx) => takeJobLease(trx, name, owner, now, now + ttlMs));
      if (!taken) return false;
    }
    await work();
    return true;
  };
}
