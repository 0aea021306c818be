// Crash consistency: the built `payctl serve` under a mixed write load on 20 connections is killed
// with SIGKILL at a random moment, 20 times, and restarted on the same database file. After each
// restart: every acknowledged write is there with its amounts; each write whose answer was lost,
// resent twice with its request id, answers the same twice and took effect once; the database
// holds exactly the answered effects; the audit (ledger checks, integrity_check, foreign keys) is
// clean; and every event committed in the round reaches the webhook receiver.
//
// It runs on SQLite (a database file) and, when PAYCTL_TEST_PG names a PostgreSQL server, again on
// a fresh PostgreSQL database there (skipped with its reason otherwise).
// PAYCTL_CRASH_ROUNDS (PAYCTL_CRASH_ROUNDS_PG) and PAYCTL_CRASH_SEED replay a run (the seed is
// printed in the summary).

import { randomUUID } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../helpers/wait.js';
import { loadClient, mapConcurrent, tokenFor, type Answer, type LoadClient } from './support/http.js';
import { MixedLoad, seededRandom, type WriteRecord } from './support/mixed-load.js';
import { PG_SKIP_REASON, TEST_PG, createTestDatabase, pgServeArgs, type TestDatabase } from './support/pg-database.js';
import { startEventReceiver, type EventReceiver } from './support/receiver.js';
import { startServe, tempDir, type ServeProcess } from './support/serve-process.js';
import { committedRequestIds, effectOf, exactlyOnceProblems, resendTwice, verifyAcknowledged, type Effect } from './support/write-checks.js';

const SQLITE_ROUNDS = Number(process.env.PAYCTL_CRASH_ROUNDS ?? 20);
/**
 * Rounds on PostgreSQL: fewer by default, as each round waits out the killed server's webhook
 * delivery leases (about 15 s of a round) and the suite has a time budget.
 */
const PG_ROUNDS = Number(process.env.PAYCTL_CRASH_ROUNDS_PG ?? process.env.PAYCTL_CRASH_ROUNDS ?? 10);
const SEED = Number(process.env.PAYCTL_CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));
const CONNECTIONS = 20;
/**
 * The kill comes as the load hands over its Nth write, N uniformly at random in this range (from
 * the round's seed, so a replay kills at the same write), with up to CONNECTIONS writes in flight.
 */
const KILL_AT_WRITE = { min: CONNECTIONS, max: 200 };
/**
 * Bounds of one round's load, whichever comes first: a safety net only, the kill comes before
 * (a round whose load ends first is reported as a problem). At a load average of 18 on 2 cores,
 * PostgreSQL took 10 s for 188 writes.
 */
const LOAD_MAX_MS = 60_000;
const LOAD_MAX_WRITES_PER_WORKER = 500;
/** How long to wait after a restart for the round's events to be delivered. */
const DELIVERY_WAIT_MS = 60_000;

interface RoundFigures {
  round: number;
  /** The write the kill came at, and how long after the load started that was. */
  killAtWrite: number;
  killAfterMs: number;
  writes: number;
  acknowledged: number;
  refused: number;
  failed5xx: number;
  lostAnswers: number;
  lostButCommitted: number;
  lostWrites: number;
  resendMismatches: number;
  exactlyOnceProblems: number;
  auditViolations: number;
  events: number;
  eventsPendingAtRestart: number;
  eventsPendingAfterWait: number;
  /** Events the receiver got more than once (allowed: delivery is at least once). */
  eventsDeliveredTwice: number;
  deliveryWaitMs: number;
  restartMs: number;
}

type Backend = 'sqlite' | 'postgres';
const BACKEND_NAMES: Record<Backend, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };
/** Checks of the database engine itself that the admin audit must have run. */
const ENGINE_CHECKS: Record<Backend, readonly string[]> = { sqlite: ['sqlite-integrity', 'foreign-keys'], postgres: ['postgres-indexes-valid', 'foreign-keys'] };

if (!TEST_PG) console.log(`test/reliability/crash.test.ts: ${PG_SKIP_REASON}`);

function crashSuite(backend: Backend): void {
  const ROUNDS = backend === 'postgres' ? PG_ROUNDS : SQLITE_ROUNDS;
  let dir: string | undefined;
  let database: TestDatabase | undefined;
  /** The --db target: a SQLite file, or the PostgreSQL database's URL. */
  let dbPath: string;
  let server: ServeProcess;
  let receiver: EventReceiver;
  const figures: RoundFigures[] = [];
  const problems: string[] = [];
  /** Every round's journal, written out when something is wrong (the temp dir is removed). */
  const journals: Array<{ round: number; payerId: string; records: WriteRecord[] }> = [];

  const serve = () => startServe({ dbPath, ...(backend === 'postgres' ? { extraArgs: pgServeArgs(dir!) } : {}) });

  beforeAll(async () => {
    dir = tempDir('crash');
    if (backend === 'postgres') {
      database = await createTestDatabase('crash');
      dbPath = database.url;
    } else {
      dbPath = join(dir, 'payctl.db');
    }
    receiver = await startEventReceiver();
    server = await serve();
  });

  afterAll(async () => {
    await server?.kill('SIGKILL');
    await receiver?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    await database?.drop();
  });

  /** A fresh merchant for the round (so that its rows are the round's), with a token and a webhook. */
  async function roundMerchant(control: LoadClient, round: number): Promise<{ payerId: string; token: string }> {
    const created = await control.must('POST', '/_payctl/accounts', { token: server.credentials.adminKey, body: { email: `crash-${round}-${randomUUID()}@example.com` } });
    expect(created.status, created.text).toBe(201);
    const token = await tokenFor(control, created.body.client_id, created.body.client_secret);
    const hook = await control.must('POST', '/v1/notifications/webhooks', { token, body: { url: `${receiver.url}/round-${round}`, event_types: [{ name: '*' }] } });
    expect(hook.status, hook.text).toBe(201);
    return { payerId: created.body.payer_id as string, token };
  }

  /** Every event of the account since `since`, newest first, following the `next` links (bounded). */
  async function eventIds(control: LoadClient, token: string, since: string): Promise<string[]> {
    const ids: string[] = [];
    let path: string | undefined = `/v1/notifications/webhooks-events?page_size=300&start_time=${encodeURIComponent(since)}`;
    for (let page = 0; path && page < 200; page += 1) {
      const answer: Answer = await control.must('GET', path, { token });
      expect(answer.status, answer.text).toBe(200);
      ids.push(...(answer.body.events as Array<{ id: string }>).map((event) => event.id));
      const next: { href: string } | undefined = (answer.body.links as Array<{ rel: string; href: string }>).find((entry) => entry.rel === 'next');
      path = next ? new URL(next.href).pathname + new URL(next.href).search : undefined;
    }
    return ids;
  }

  /** Event ids (of `wanted`) with a DELIVERED delivery that the receiver also saw. */
  async function deliveredEvents(control: LoadClient, token: string, wanted: readonly string[]): Promise<Set<string>> {
    const recent = await control.must('GET', '/_payctl/deliveries?status=DELIVERED&page_size=500', { token });
    const delivered = new Set((recent.body.deliveries as Array<{ event_id: string }>).map((delivery) => delivery.event_id));
    // Past the newest 500, ask per event.
    const unseen = wanted.filter((id) => !delivered.has(id) && receiver.received.has(id));
    await mapConcurrent(unseen, 8, async (id) => {
      const one = await control.must('GET', `/_payctl/deliveries?event_id=${encodeURIComponent(id)}&status=DELIVERED`, { token });
      if ((one.body.deliveries as unknown[]).length > 0) delivered.add(id);
    });
    return new Set(wanted.filter((id) => delivered.has(id) && receiver.received.has(id)));
  }

  async function auditViolations(control: LoadClient): Promise<number> {
    const audit = await control.must('GET', '/_payctl/audit', { token: server.credentials.adminKey });
    expect(audit.status, audit.text).toBe(200);
    const checks = audit.body.checks as Array<{ name: string; violations: unknown[] }>;
    // The admin audit carries the engine's own checks (SQLite: PRAGMA integrity_check and
    // foreign_key_check; PostgreSQL: indexes valid, constraints validated).
    for (const name of ENGINE_CHECKS[backend]) if (!checks.some((check) => check.name === name)) problems.push(`audit did not run ${name}`);
    const failing = checks.filter((check) => check.violations.length > 0);
    for (const check of failing) problems.push(`audit ${check.name}: ${JSON.stringify(check.violations.slice(0, 3))}`);
    const count = failing.reduce((sum, check) => sum + check.violations.length, 0);
    return audit.body.ok === true ? count : Math.max(count, 1);
  }

  async function crashRound(round: number): Promise<void> {
    const random = seededRandom(SEED + round);
    const control = loadClient(server.url, { connections: 4 });
    const { payerId, token } = await roundMerchant(control, round);
    const since = new Date(Math.floor(Date.now() / 1000) * 1000 - 1000).toISOString();
    await control.close();

    // Load, then SIGKILL as a random write (of the seed) is handed over.
    const client = loadClient(server.url, { connections: CONNECTIONS, timeoutMs: 20_000 });
    const load = new MixedLoad({ client, token, workers: CONNECTIONS, maxMs: LOAD_MAX_MS, maxWritesPerWorker: LOAD_MAX_WRITES_PER_WORKER, receiverPayerId: server.payerId, random });
    const killAtWrite = KILL_AT_WRITE.min + Math.floor(random() * (KILL_AT_WRITE.max - KILL_AT_WRITE.min));
    const loadStarted = performance.now();
    const running = load.run();
    const midLoad = await load.whenSent(killAtWrite);
    await server.kill('SIGKILL');
    const killAfterMs = Math.round(performance.now() - loadStarted);
    if (!midLoad) problems.push(`round ${round}: the load ended after ${load.records.length} writes, before write ${killAtWrite}: the kill came after it`);
    load.stop();
    await running;
    await client.close();

    journals.push({ round, payerId, records: load.records });
    const started = performance.now();
    server = await serve();
    const restartMs = performance.now() - started;
    const again = loadClient(server.url, { connections: 8 });
    try {
      const records = load.records;
      const byOutcome = (outcome: WriteRecord['outcome']) => records.filter((record) => record.outcome === outcome);
      for (const record of byOutcome('failed')) problems.push(`round ${round}: ${record.kind} answered ${record.status}: ${JSON.stringify(record.response)}`);

      // Acknowledged writes are all there, with their amounts.
      const acknowledged = byOutcome('acknowledged').map((record) => effectOf(record, record.response));
      const missing = await verifyAcknowledged(again, token, acknowledged);
      problems.push(...missing.map((problem) => `round ${round}: lost write: ${problem}`));

      // Lost answers: which had committed (their request id is stored), then resent twice each.
      const lost = byOutcome('lost');
      const committed = await committedRequestIds(dbPath, payerId, lost.map((record) => record.requestId));
      const resent = [];
      for (const record of lost) resent.push(await resendTwice(again, token, record));
      const effects: Effect[] = [...acknowledged];
      let resendMismatches = 0;
      for (const { record, first, second, same } of resent) {
        if (!same) {
          resendMismatches += 1;
          problems.push(`round ${round}: ${record.kind} resent twice answered ${first.status} ${first.text} then ${second.status} ${second.text}`);
        }
        if (first.status >= 500 || second.status >= 500) problems.push(`round ${round}: ${record.kind} resent answered ${first.status}/${second.status}`);
        if (first.status < 300) effects.push(effectOf(record, first.body));
        if (committed.has(record.requestId) && first.status >= 300) {
          problems.push(`round ${round}: ${record.kind} ${record.requestId} had committed but its resend answered ${first.status} ${first.text}`);
        }
      }
      // Resent writes that now answered are there too; then the rows match the answers exactly.
      const resentEffects = effects.slice(acknowledged.length);
      problems.push(...(await verifyAcknowledged(again, token, resentEffects)).map((problem) => `round ${round}: resent write missing: ${problem}`));
      const once = await exactlyOnceProblems(dbPath, payerId, effects);
      problems.push(...once.map((problem) => `round ${round}: ${problem}`));

      const violations = await auditViolations(again);

      // Events committed before the kill (and by the resends) reach the receiver.
      const deliveryStarted = performance.now();
      let events: string[] = [];
      let pendingAtRestart = -1;
      let pending = -1;
      await waitFor(
        async () => {
          events = await eventIds(again, token, since);
          const delivered = await deliveredEvents(again, token, events);
          pending = events.length - delivered.size;
          if (pendingAtRestart < 0) pendingAtRestart = pending;
          return pending === 0;
        },
        { timeoutMs: DELIVERY_WAIT_MS, intervalMs: 250, what: 'every event delivered' },
      ).catch((error: Error) => {
        if (!error.message.startsWith('timed out after')) throw error;
        problems.push(`round ${round}: ${pending} of ${events.length} events not delivered after ${DELIVERY_WAIT_MS} ms`);
      });

      figures.push({
        round,
        killAtWrite,
        killAfterMs,
        writes: records.length,
        acknowledged: acknowledged.length,
        refused: byOutcome('refused').length,
        failed5xx: byOutcome('failed').length,
        lostAnswers: lost.length,
        lostButCommitted: committed.size,
        lostWrites: missing.length,
        resendMismatches,
        exactlyOnceProblems: once.length,
        auditViolations: violations,
        events: events.length,
        eventsPendingAtRestart: pendingAtRestart,
        eventsPendingAfterWait: pending,
        eventsDeliveredTwice: events.filter((id) => (receiver.received.get(id) ?? 0) > 1).length,
        deliveryWaitMs: Math.round(performance.now() - deliveryStarted),
        restartMs: Math.round(restartMs),
      });
    } finally {
      await again.close();
    }
  }

  function saveJournal(): string {
    const file = join(tmpdir(), `payctl-crash-journal-${backend}-${SEED}.json`);
    writeFileSync(file, JSON.stringify({ seed: SEED, problems, journals }, null, 1));
    return file;
  }

  function printSummary(totalMs: number): void {
    const sum = (key: keyof RoundFigures) => figures.reduce((total, round) => total + round[key], 0);
    const max = (key: keyof RoundFigures) => figures.reduce((top, round) => Math.max(top, round[key]), 0);
    const lines = [
      '',
      `=== CRASH CONSISTENCY SUMMARY (test/reliability/crash.test.ts, ${BACKEND_NAMES[backend]}) ===`,
      `seed ${SEED} (PAYCTL_CRASH_SEED), rounds ${figures.length}/${ROUNDS}, ${CONNECTIONS} connections, SIGKILL at write ${KILL_AT_WRITE.min}..${KILL_AT_WRITE.max}, ${Math.round(totalMs / 1000)} s in all`,
      `writes sent                       ${sum('writes')}`,
      `acknowledged writes (2xx)         ${sum('acknowledged')}`,
      `refused (4xx)                     ${sum('refused')}`,
      `5xx answers                       ${sum('failed5xx')} (must be 0)`,
      `lost answers                      ${sum('lostAnswers')} (of which committed before the kill: ${sum('lostButCommitted')})`,
      `lost writes                       ${sum('lostWrites')} (must be 0)`,
      `resends answering differently     ${sum('resendMismatches')} (must be 0)`,
      `exactly-once problems             ${sum('exactlyOnceProblems')} (must be 0)`,
      `audit violations                  ${sum('auditViolations')} (must be 0)`,
      `events in the rounds' windows     ${sum('events')}`,
      `events pending right after restart ${sum('eventsPendingAtRestart')} (max per round ${max('eventsPendingAtRestart')})`,
      `events pending after the wait     ${sum('eventsPendingAfterWait')} (must be 0; longest wait ${max('deliveryWaitMs')} ms)`,
      `events received more than once    ${sum('eventsDeliveredTwice')} (allowed: at-least-once delivery across a kill)`,
      `restart time                      max ${max('restartMs')} ms, mean ${Math.round(sum('restartMs') / Math.max(1, figures.length))} ms`,
      'per round: kill at write (ms) / writes / acked / lost (committed) / events (pending at restart)',
      ...figures.map((f) => `  #${f.round}: ${f.killAtWrite} (${f.killAfterMs}) / ${f.writes} / ${f.acknowledged} / ${f.lostAnswers} (${f.lostButCommitted}) / ${f.events} (${f.eventsPendingAtRestart})`),
      ...(problems.length > 0 ? ['problems:', ...problems.slice(0, 30).map((problem) => `  ${problem}`), `journal of every write: ${saveJournal()}`] : []),
      '',
    ];
    console.log(lines.join('\n'));
  }

  it(`keeps every acknowledged write and applies lost ones once across ${ROUNDS} SIGKILLs`, async () => {
    const started = performance.now();
    try {
      for (let round = 0; round < ROUNDS; round += 1) await crashRound(round);
      // A clean stop after the last round leaves a database that opens and audits clean.
      await server.kill('SIGTERM');
      server = await serve();
      const control = loadClient(server.url, { connections: 2 });
      try {
        expect(await auditViolations(control)).toBe(0);
      } finally {
        await control.close();
      }
    } finally {
      printSummary(performance.now() - started);
    }
    expect(problems).toEqual([]);
    const total = (key: keyof RoundFigures) => figures.reduce((sum, round) => sum + round[key], 0);
    expect(figures).toHaveLength(ROUNDS);
    expect(total('acknowledged')).toBeGreaterThan(ROUNDS * 10);
    expect(total('lostWrites')).toBe(0);
    expect(total('failed5xx')).toBe(0);
    expect(total('auditViolations')).toBe(0);
    expect(total('eventsPendingAfterWait')).toBe(0);
  }, 600_000);
}

describe('on SQLite', () => crashSuite('sqlite'));
describe.skipIf(!TEST_PG)(`on PostgreSQL${TEST_PG ? '' : ` (skipped: ${PG_SKIP_REASON})`}`, () => crashSuite('postgres'));
