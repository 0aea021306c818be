// Fault rules: kept per merchant in the database (every replica sees them), counted exactly there.

import { isoSeconds } from '../core/clock.js';
import type { ServerDeps } from '../core/deps.js';
import { prefixedId } from '../core/ids.js';
import type { Queryable } from '../db/schema.js';
import { notFound } from '../http/errors.js';
import { pathMatches } from '../http/path-pattern.js';
import { checkRule, type Respond, type RouteRef, type RuleInput } from './rules.js';
import * as store from './store.js';

export interface FaultRule {
  id: string;
  account_id: string;
  method: string;
  path: string;
  after: number;
  times: number | null;
  respond: Respond;
  matched: number;
  fired: number;
  create_time: string;
}

function ruleOf(row: store.FaultRuleRow): FaultRule {
  return {
    id: row.id,
    account_id: row.account_id,
    method: row.method,
    path: row.path,
    after: Number(row.after_calls),
    times: row.times === null ? null : Number(row.times),
    respond: JSON.parse(row.respond) as Respond,
    matched: Number(row.matched),
    fired: Number(row.fired),
    create_time: row.create_time,
  };
}

/**
 * Each process keeps the rules it read per merchant while nothing else wrote to the database
 * (SQLite: `generation('elsewhere')`) and it changed no rule itself; where no such marker exists
 * (PostgreSQL) every request reads them. Only the definitions are kept: counts live in the rows.
 */
interface RuleCache {
  elsewhere: string;
  version: number;
  rules: Map<string, { version: number; rules: FaultRule[] }>;
}
const caches = new WeakMap<ServerDeps, RuleCache>();

function cacheOf(deps: ServerDeps): RuleCache | undefined {
  const elsewhere = deps.storage.processCaches ? deps.storage.generation?.('elsewhere') : undefined;
  if (elsewhere === undefined) return undefined;
  let cache = caches.get(deps);
  if (cache === undefined) caches.set(deps, (cache = { elsewhere, version: 0, rules: new Map() }));
  if (cache.elsewhere !== elsewhere) {
    cache.rules.clear();
    cache.elsewhere = elsewhere;
  }
  return cache;
}

function rulesChanged(deps: ServerDeps): void {
  const cache = caches.get(deps);
  if (cache !== undefined) {
    cache.version += 1;
    cache.rules.clear();
  }
}

export async function createRule(deps: ServerDeps, accountId: string, input: RuleInput, routes: readonly RouteRef[]): Promise<FaultRule> {
  checkRule(input, routes);
  const row = {
    id: prefixedId(deps.ids, 'FAULT', 17),
    account_id: accountId,
    method: input.method,
    path: input.path,
    after_calls: BigInt(input.after ?? 0),
    times: input.times === undefined || input.times === null ? null : BigInt(input.times),
    respond: JSON.stringify(input.respond),
    create_time: isoSeconds(deps.clock.systemNow()),
  };
  await deps.storage.transaction({ name: 'faults.create' }, async (trx) => {
    await store.insertRule(trx, row);
    await deps.domains.oauth.addFaultRules(trx, accountId, 1n);
  });
  rulesChanged(deps);
  return ruleOf({ ...row, matched: 0n, fired: 0n });
}

export async function listRules(deps: ServerDeps, accountId: string | undefined): Promise<FaultRule[]> {
  return (await store.listRules(deps.db, accountId)).map(ruleOf);
}

export async function getRule(deps: ServerDeps, id: string, accountId: string | undefined): Promise<FaultRule> {
  const row = await store.findRule(deps.db, id, accountId);
  if (row === undefined) throw notFound('fault', id);
  return ruleOf(row);
}

export async function deleteRule(deps: ServerDeps, id: string, accountId: string | undefined): Promise<void> {
  const deleted = await deps.storage.transaction({ name: 'faults.delete' }, async (trx) => {
    const owner = await store.deleteRule(trx, id, accountId);
    if (owner !== undefined) await deps.domains.oauth.addFaultRules(trx, owner, -1n);
    return owner !== undefined;
  });
  rulesChanged(deps);
  if (!deleted) throw notFound('fault', id);
}

/** Deletes the rules and takes each from its account's count, by what was really deleted (exact under concurrent adds). */
async function deleteAndUncount(deps: ServerDeps, db: Queryable, accountId: string | undefined): Promise<void> {
  const perAccount = new Map<string, bigint>();
  for (const owner of await store.deleteRules(db, accountId)) perAccount.set(owner, (perAccount.get(owner) ?? 0n) + 1n);
  for (const [owner, count] of [...perAccount].sort(([a], [b]) => (a < b ? -1 : 1))) await deps.domains.oauth.addFaultRules(db, owner, -count);
}

/** A reset of a merchant's data removes its rules too, in the reset's transaction (the journal stays). */
export function deleteRulesOnReset(deps: ServerDeps): void {
  deps.hooks.onAccountReset.push(async (db, accountId) => {
    await deleteAndUncount(deps, db, accountId);
    rulesChanged(deps);
  });
}

export async function deleteRules(deps: ServerDeps, accountId: string | undefined): Promise<void> {
  await deps.storage.transaction({ name: 'faults.delete-all' }, (trx) => deleteAndUncount(deps, trx, accountId));
  rulesChanged(deps);
}

/** The merchant's rules as this process last read them, if still good (no query); undefined: read them. */
export function keptRules(deps: ServerDeps, accountId: string): readonly FaultRule[] | undefined {
  const cache = cacheOf(deps);
  const kept = cache?.rules.get(accountId);
  return kept !== undefined && kept.version === cache?.version ? kept.rules : undefined;
}

async function rulesFor(deps: ServerDeps, accountId: string): Promise<FaultRule[]> {
  const cache = cacheOf(deps);
  const kept = cache?.rules.get(accountId);
  if (kept !== undefined && kept.version === cache?.version) return kept.rules;
  const version = cache?.version ?? 0;
  const rules = (await store.listRules(deps.db, accountId)).map(ruleOf);
  // Kept only if no rule changed here while it was read (a change elsewhere moves the generation).
  if (cache !== undefined && cache.version === version) cache.rules.set(accountId, { version, rules });
  return rules;
}

/** Whether the merchant has any rule (so the read cache, which answers without these hooks, must stop). */
export interface FaultDecision {
  rule: FaultRule | undefined;
  /** The merchant has rules at all. */
  anyRules: boolean;
}

/**
 * Counts this call against every rule of the merchant it matches and returns the rule that fires,
 * the oldest whose count says so: a rule fires on its calls after+1 .. after+times.
 */
export async function faultFor(deps: ServerDeps, accountId: string, method: string, path: string): Promise<FaultDecision> {
  const rules = await rulesFor(deps, accountId);
  if (rules.length === 0) return { rule: undefined, anyRules: false };
  const matching = rules.filter((rule) => (rule.method === '*' || rule.method === method) && pathMatches(rule.path, path));
  if (matching.length === 0) return { rule: undefined, anyRules: true };
  const fired = await deps.storage.transaction({ name: 'faults.count', batch: true }, async (trx) => {
    const counted = await store.countMatches(trx, accountId, matching.map((rule) => rule.id));
    const firing = counted.find((row) => {
      const call = row.matched;
      return call > row.after_calls && (row.times === null || call <= row.after_calls + row.times);
    });
    if (firing !== undefined) await store.countFired(trx, firing.id);
    return firing?.id;
  });
  return { rule: matching.find((rule) => rule.id === fired), anyRules: true };
}
