// Guessing a client secret in parallel is no faster than guessing serially: once the throttle has
// armed, a burst of 60 wrong secrets for one client id gets at most a slot per 2 s checked and the
// rest refused (429, Retry-After) without a check; the rightful owner, honouring Retry-After, still
// gets a token; a source address spraying many client ids is limited the same way.

import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { ADDRESS_RULE, CLIENT_ID_RULE } from '../../src/server/oauth/throttle.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { send, type Answer } from './fixtures/http.js';

// Two servers: the address test needs an address with no failures yet (the throttle is per server).
const t: TestServer = await startTestServer({ memory: true });
const fresh: TestServer = await startTestServer({ memory: true });
const figures: string[] = [];

afterAll(async () => {
  await t.close();
  await fresh.close();
  console.log(`credential guessing: ${figures.join('; ')}`);
});

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
const tokenRequest = (clientId: string, secret: string, server: TestServer = t): Promise<Answer> =>
  send(server.url, {
    method: 'POST',
    target: '/v1/oauth2/token',
    headers: { authorization: basic(clientId, secret), 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
    timeoutMs: 20_000,
  });
/** A sleep kept on purpose: the Retry-After the server asked for must pass (the test is that honouring it works). */
const honour = (answer: Answer) => new Promise((resolve) => setTimeout(resolve, Number(answer.headers['retry-after']) * 1000));
const perSecond = (count: number, ms: number) => (count / (ms / 1000)).toFixed(2);

/** Checks the answers of a burst: wrong secrets checked (401) or refused unchecked (429 with Retry-After). */
function tally(answers: Answer[]): { checked: number; refused: number } {
  let checked = 0;
  let refused = 0;
  for (const answer of answers) {
    if (answer.status === 401) {
      expect(answer.body).toEqual({ error: 'invalid_client', error_description: 'Client Authentication failed' });
      checked += 1;
    } else {
      expect(answer.status, answer.text).toBe(429);
      expect((answer.body as { error?: string }).error).toBe('temporarily_unavailable');
      expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      refused += 1;
    }
  }
  return { checked, refused };
}

describe('one client id', () => {
  it('after the throttle arms, 60 parallel wrong secrets are checked no faster than serial ones; the owner still gets a token', async () => {
    const victim = await t.createMerchant();
    // Arm it serially: 5 free failures, then 100 ms doubling to the 2 s cap.
    let started = Date.now();
    for (let attempt = 1; attempt <= 10; attempt += 1) expect((await tokenRequest(victim.client_id, `arm-${attempt}`)).status).toBe(401);
    started = Date.now();
    for (let attempt = 1; attempt <= 3; attempt += 1) expect((await tokenRequest(victim.client_id, `serial-${attempt}`)).status).toBe(401);
    const serialMs = Date.now() - started;

    started = Date.now();
    const pending = Array.from({ length: 60 }, (_, index) => tokenRequest(victim.client_id, `parallel-${index}`));
    // The owner tries while the burst is queued: once the first refusal is out, the queue is full.
    await Promise.race(pending);
    let tries = 0;
    let toldToWaitS = 0;
    let answer: Answer;
    const ownerStarted = Date.now();
    for (;;) {
      tries += 1;
      answer = await tokenRequest(victim.client_id, victim.client_secret);
      if (answer.status !== 429 || tries >= 4) break;
      toldToWaitS += Number(answer.headers['retry-after']);
      await honour(answer);
    }
    const ownerMs = Date.now() - ownerStarted;
    const burst = await Promise.all(pending);
    const burstMs = Date.now() - started;
    const { checked, refused } = tally(burst);
    // One slot per 2 s, queued at most 4 s ahead: two checked, the rest refused without a check.
    const slots = Math.floor(CLIENT_ID_RULE.maxWaitMs / CLIENT_ID_RULE.maxSpacingMs);
    expect(checked).toBeLessThanOrEqual(slots);
    expect(checked).toBeGreaterThanOrEqual(1);
    expect(refused).toBe(60 - checked);
    figures.push(
      `armed client id: serial 3 guesses in ${serialMs} ms (${perSecond(3, serialMs)}/s); parallel 60 -> ${checked} checked, ${refused} refused (429) in ${burstMs} ms (${perSecond(checked, burstMs)} guesses/s)`,
    );
    // The owner: refused while the queue was full, told when to come back, then served.
    expect(answer.status, answer.text).toBe(200);
    expect(tries).toBeLessThanOrEqual(3);
    expect(toldToWaitS).toBeLessThanOrEqual(CLIENT_ID_RULE.maxWaitMs / 1000 + 1);
    figures.push(`owner during the burst: token after ${tries} tries, told to wait ${toldToWaitS} s, ${ownerMs} ms in all`);
    // The success cleared the count: the next wrong secret is answered at once (no 429).
    expect((await tokenRequest(victim.client_id, 'after-success')).status).toBe(401);
  }, 120_000);
});

describe('one source address', () => {
  it(`after ${ADDRESS_RULE.freeFailures} failures across client ids, a parallel spray is spaced too`, async () => {
    for (let attempt = 0; attempt < ADDRESS_RULE.freeFailures; attempt += 1) {
      expect((await tokenRequest(`A${randomUUID()}`, 'spray', fresh)).status).toBe(401);
    }
    const started = Date.now();
    const spray = await Promise.all(Array.from({ length: 20 }, () => tokenRequest(`A${randomUUID()}`, 'spray', fresh)));
    const sprayMs = Date.now() - started;
    const { checked, refused } = tally(spray);
    // Slots 100, 300, 700, 1500, 3100 ms ahead fit in the 4 s queue; the next (5100) does not.
    expect(checked).toBe(5);
    expect(refused).toBe(15);
    figures.push(`address spray: 20 parallel new client ids -> ${checked} checked, ${refused} refused in ${sprayMs} ms`);
  }, 120_000);
});
