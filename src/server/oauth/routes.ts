// POST /v1/oauth2/token: client credentials in, bearer token out (OAuth-style errors, as the service answers).

import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ServerDeps } from '../core/deps.js';
import { issueToken } from './service.js';
import { CredentialThrottle } from './throttle.js';

function oauthError(reply: FastifyReply, status: number, error: string, description: string): FastifyReply {
  return reply.code(status).send({ error, error_description: description });
}

function basicCredentials(header: unknown): { clientId: string; clientSecret: string } | undefined {
  if (typeof header !== 'string' || header.length > 16_000) return undefined;
  const match = /^Basic ([A-Za-z0-9+/=]+)$/.exec(header.trim());
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  return { clientId: decoded.slice(0, colon), clientSecret: decoded.slice(colon + 1) };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function registerOauthRoutes(app: FastifyInstance, deps: ServerDeps): void {
  const throttle = new CredentialThrottle();

  app.post('/v1/oauth2/token', { config: { auth: 'none', form: true } }, async (request, reply) => {
    const credentials = basicCredentials(request.headers.authorization);
    if (!credentials) return oauthError(reply, 401, 'invalid_client', 'Client Authentication failed');
    const form = (request.body ?? {}) as Record<string, unknown>;
    if (!request.headers['content-type']?.startsWith('application/x-www-form-urlencoded')) {
      return oauthError(reply, 400, 'invalid_request', 'Send grant_type=client_credentials form-encoded');
    }
    if (form.grant_type !== 'client_credentials') {
      return oauthError(reply, 400, 'unsupported_grant_type', 'Grant type must be client_credentials');
    }
    // The slot is taken before the secret is checked: parallel guesses wait their turn like serial ones.
    const admission = throttle.admit(credentials.clientId, request.ip, Date.now());
    if (!admission.admitted) {
      const seconds = Math.max(1, Math.ceil(admission.retryAfterMs / 1000));
      reply.header('retry-after', String(seconds));
      return oauthError(reply, 429, 'temporarily_unavailable', `Too many failed attempts for this client; retry after ${seconds} s`);
    }
    let token: Awaited<ReturnType<typeof issueToken>>;
    try {
      if (admission.waitMs > 0) await sleep(admission.waitMs);
      token = await issueToken(deps, credentials.clientId, credentials.clientSecret);
    } catch (error) {
      admission.release('neutral', Date.now());
      throw error;
    }
    admission.release(token ? 'success' : 'failure', Date.now());
    if (!token) return oauthError(reply, 401, 'invalid_client', 'Client Authentication failed');
    return reply.code(200).send(token);
  });
}
