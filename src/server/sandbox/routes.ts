// The /_payctl control plane: health, accounts, consents, clock, reset, whoami.

import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ServerDeps } from '../core/deps.js';
import { callerOf } from '../http/auth.js';
import { ServiceError } from '../http/errors.js';
import { RETENTION_SECONDS, runMutation, sendResult } from '../http/idempotency.js';
import { parseBody } from '../http/validation.js';
import * as sandbox from './service.js';

const accountSchema = z.object({ email: z.string().min(3).max(254).regex(/^[^@\s]{1,64}@[^@\s]+$/).optional() });
const consentSchema = z.object({
  platform_client_id: z.string().min(1).max(255),
  payer_id: z.string().regex(/^[2-9A-HJ-NP-Z]{13}$/),
});
const kycSchema = z.object({ status: z.enum(['PENDING', 'VERIFIED']) });
/** Forward only, at most ten years at a time. */
const clockSchema = z.object({ advance_seconds: z.number().int().min(1).max(315_360_000) });

export const PAYCTL_VERSION = '0.1.0';

export function registerSandboxRoutes(app: FastifyInstance, deps: ServerDeps): void {
  app.get('/_payctl/health', { config: { auth: 'none' } }, async () => ({ status: 'ok', version: PAYCTL_VERSION }));

  app.post('/_payctl/accounts', { config: { auth: 'admin' } }, async (request, reply) => {
    const body = parseBody(accountSchema, request.body);
    return reply.code(201).send(await sandbox.createAccount(deps, body.email));
  });

  app.post('/_payctl/consents', { config: { auth: 'admin' } }, async (request, reply) => {
    const body = parseBody(consentSchema, request.body);
    return reply.code(201).send(await sandbox.grantConsent(deps, body.platform_client_id, body.payer_id));
  });

  app.post('/_payctl/accounts/kyc', async (request, reply) => {
    const { status } = parseBody(kycSchema, request.body);
    const result = await runMutation(
      deps,
      request,
      { operation: 'sandbox.accounts.kyc', retentionSeconds: RETENTION_SECONDS.payments },
      async (ctx) => ({ status: 200, body: await sandbox.setKycStatus(ctx, status) }),
    );
    return sendResult(reply, result);
  });

  app.get('/_payctl/clock', async (request) => sandbox.clockView(deps, callerOf(request).accountId));

  app.post('/_payctl/clock', async (request) => {
    const body = parseBody(clockSchema, request.body);
    return sandbox.advanceClock(deps, callerOf(request).accountId, body.advance_seconds);
  });

  app.post('/_payctl/reset', { config: { auth: 'bearer-or-admin' } }, async (request) => {
    if (request.isAdmin) return sandbox.resetData(deps, 'all');
    if (!request.caller) throw new ServiceError('AUTHENTICATION_FAILURE');
    return sandbox.resetData(deps, request.caller.accountId);
  });

  app.get('/_payctl/whoami', async (request) => {
    const caller = callerOf(request);
    return sandbox.whoami(deps, caller.accountId, caller.clientId, caller.appId);
  });
}
