// Model-based property test: random sequences of authorize, capture, void, reauthorize, refund,
// invoice send / record-payment / record-refund, clock advances and request-id replays, run against
// one real server over HTTP and compared with a small model after every step. A disagreement is
// shrunk by fast-check to a minimal sequence, printed with the server's answer and the step trace.

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { stepArbs } from './model/commands.js';
import { emptyModel, type Model } from './model/state.js';
import { newSession, verifyAll, verifyAudit, type Session } from './model/system.js';

/** Bounded: runs × steps. Override with PAYCTL_MODEL_RUNS / PAYCTL_MODEL_STEPS / PAYCTL_MODEL_SEED. */
const RUNS = Number(process.env.PAYCTL_MODEL_RUNS ?? 80);
const MAX_STEPS = Number(process.env.PAYCTL_MODEL_STEPS ?? 35);
const SEED = process.env.PAYCTL_MODEL_SEED === undefined ? undefined : Number(process.env.PAYCTL_MODEL_SEED);
/** Stops generating new runs (and shrinking) after this long; what ran still counts. */
const TIME_LIMIT_MS = Number(process.env.PAYCTL_MODEL_TIME_LIMIT_MS ?? 90_000);

let t: TestServer;
let session: Session;

beforeAll(async () => {
  // Tokens that outlive every clock advance of a run (each run starts from a reset clock).
  t = await startTestServer({ memory: true, config: { tokenLifetimeSeconds: 100 * 365 * 86_400 } });
  session = await newSession(t);
});

afterAll(async () => {
  await t?.close();
});

describe('payments and invoicing against a model', () => {
  it('agrees with the model after every step of random sequences', async () => {
    const figures = { runs: 0, steps: 0, requests: 0, longest: 0, refusals: 0 };
    const started = Date.now();
    await fc.assert(
      fc.asyncProperty(fc.commands(stepArbs, { maxCommands: MAX_STEPS, size: 'max' }), async (steps) => {
        // One merchant for every run, reset in between: data, ledger, request ids and clock.
        const reset = await t.request('POST', '/_payctl/reset', { token: session.merchant.token, body: {} });
        expect(reset.status, reset.text).toBe(200);
        const model: Model = emptyModel();
        session.log = [];
        session.steps = 0;
        session.requests = 0;
        await fc.asyncModelRun(() => ({ model, real: session }), steps);
        await verifyAll(session, model);
        await verifyAudit(session);
        figures.runs += 1;
        figures.steps += session.steps;
        figures.requests += session.requests;
        figures.longest = Math.max(figures.longest, session.steps);
        figures.refusals += session.log.filter((line) => line.includes('-> refused')).length;
      }),
      {
        numRuns: RUNS,
        interruptAfterTimeLimit: TIME_LIMIT_MS,
        markInterruptAsFailure: false,
        ...(SEED !== undefined ? { seed: SEED } : {}),
      },
    );
    // Every account together, with SQLite's integrity and foreign-key checks.
    const audit = await t.request('GET', '/_payctl/audit', { token: t.adminKey });
    expect(audit.status).toBe(200);
    expect(audit.body.ok, JSON.stringify(audit.body.checks.filter((c: { violations: unknown[] }) => c.violations.length > 0))).toBe(true);
    expect(figures.runs).toBeGreaterThan(0);
    const outcomes = [...session.outcomes].sort(([a], [b]) => a.localeCompare(b)).map(([key, count]) => `  ${key} ×${count}`);
    console.log(
      `[reliability] model: ${figures.runs} runs, ${figures.steps} steps checked (longest ${figures.longest}, ` +
        `${figures.refusals} predicted refusals), ${figures.requests} requests, ${((Date.now() - started) / 1000).toFixed(1)} s; audit clean\n` +
        `outcomes:\n${outcomes.join('\n')}`,
    );
  });
});
