// What a fault rule is: its schema, its path pattern, the routes it may name and the answer it gives.

import { z } from 'zod';
import { ERROR_CATALOGUE, ServiceError, serviceError, type ErrorName } from '../http/errors.js';
import { segmentsOf } from '../http/path-pattern.js';
import { FAMILY_ISSUES, GENERIC_ISSUES } from './known-issues.js';

export const MAX_DELAY_MS = 60_000;

const ruleRespondSchema = () =>
  z.union([
    z.strictObject({ status: z.number().int().min(400).max(599), retry_after: z.number().int().min(0).max(86_400).optional() }),
    z.strictObject({ name: z.string().min(1).max(64), issue: z.string().regex(/^[A-Z][A-Z0-9_]{1,99}$/) }),
    z.strictObject({ delay_ms: z.number().int().min(1).max(MAX_DELAY_MS) }),
    z.strictObject({ drop: z.literal(true) }),
  ]);

export const ruleSchema = z.strictObject({
  method: z.string().regex(/^([A-Za-z]{3,7}|\*)$/, 'Expected an HTTP method or "*".').transform((method) => method.toUpperCase()),
  path: z.string().min(2).max(500).regex(/^\/[^?#\s]*$/, 'Expected a path starting with "/" (no query), "*" for one segment.'),
  after: z.number().int().min(0).max(1_000_000_000).optional(),
  times: z.number().int().min(1).max(1_000_000_000).nullable().optional(),
  respond: ruleRespondSchema(),
});

export type RuleInput = z.output<typeof ruleSchema>;
export type Respond = RuleInput['respond'];

/** Whether a rule's path could name a route pattern (`:param` segments match any rule segment). */
function patternMeetsRoute(pattern: string, route: string): boolean {
  const want = segmentsOf(pattern);
  const have = segmentsOf(route);
  if (want.length !== have.length) return false;
  return want.every((segment, index) => {
    const routeSegment = have[index] ?? '';
    return segment === '*' || routeSegment.startsWith(':') || segment === routeSegment;
  });
}

export interface RouteRef {
  method: string;
  url: string;
  auth: string;
}

/** The API family of a path (for the issue codes its errors may carry). */
function familyOf(path: string): string | undefined {
  if (path.startsWith('/v2/checkout/orders') || path.startsWith('/v2/payments')) return 'payments';
  if (path.startsWith('/v2/invoicing')) return 'invoicing';
  if (path.startsWith('/v1/customer/disputes')) return 'disputes';
  if (path.startsWith('/v1/payments/payouts')) return 'payouts';
  if (path.startsWith('/v1/notifications')) return 'notifications';
  return undefined;
}

function issuesOf(family: string | undefined): Set<string> {
  const issues = new Set(GENERIC_ISSUES);
  // Orders and payments answer with each other's errors (an order's capture is a payment's).
  const families = family === 'payments' ? ['payments', 'orders'] : family === undefined ? [] : [family];
  for (const name of families) for (const issue of FAMILY_ISSUES[name] ?? []) issues.add(issue);
  return issues;
}

const invalidRule = (field: string, value: unknown, description: string): ServiceError =>
  serviceError('INVALID_REQUEST', 'INVALID_PARAMETER_VALUE', description, { field, value, location: 'body' });

/** The error name that answers with this HTTP status in the service's shape. */
export function errorNameForStatus(status: number): ErrorName | undefined {
  const preferred: Record<number, ErrorName> = { 403: 'NOT_AUTHORIZED', 404: 'RESOURCE_NOT_FOUND', 500: 'INTERNAL_SERVER_ERROR', 400: 'INVALID_REQUEST' };
  if (preferred[status] !== undefined) return preferred[status];
  const entry = Object.entries(ERROR_CATALOGUE).find(([, value]) => value.status === status);
  return entry?.[0] as ErrorName | undefined;
}

/**
 * Refuses a rule no request could meet (no route of the bearer API has its method and path; the
 * control plane and the token endpoint are not faulted) or whose answer the API does not define.
 */
export function checkRule(rule: RuleInput, routes: readonly RouteRef[]): void {
  if (rule.path.startsWith('/_payctl/') || rule.path === '/_payctl') {
    throw invalidRule('/path', rule.path, 'Fault rules apply to the API, not to the /_payctl control plane.');
  }
  const named = routes.filter(
    (route) => route.auth === 'bearer' && (rule.method === '*' || route.method === rule.method) && patternMeetsRoute(rule.path, route.url),
  );
  if (named.length === 0) {
    throw invalidRule('/path', rule.path, `No route of the API answers ${rule.method} ${rule.path} with a bearer token ("*" stands for one path segment).`);
  }
  const respond = rule.respond;
  if ('status' in respond) {
    if (errorNameForStatus(respond.status) === undefined) {
      throw invalidRule('/respond/status', respond.status, 'The service has no error with this HTTP status.');
    }
    if (respond.retry_after !== undefined && respond.status !== 429 && respond.status !== 503) {
      throw invalidRule('/respond/retry_after', respond.retry_after, 'Retry-After goes with a 429 or 503 answer.');
    }
  }
  if ('name' in respond) {
    if (!Object.hasOwn(ERROR_CATALOGUE, respond.name)) throw invalidRule('/respond/name', respond.name, 'The service defines no error with this name.');
    const known = issuesOf(familyOf(rule.path));
    if (!known.has(respond.issue)) {
      throw invalidRule('/respond/issue', respond.issue, `The API defines no issue ${respond.issue} for ${rule.path}.`);
    }
  }
}

/** The error a status or named rule answers with, in the service's shape. */
export function faultError(respond: Respond, ruleId: string): ServiceError {
  const description = `Simulated by fault rule ${ruleId}.`;
  // The issue is one the API defines for the route (checkRule), not necessarily one payctl raises itself.
  if ('name' in respond) return new ServiceError(respond.name as ErrorName, [{ issue: respond.issue, description }]);
  if (!('status' in respond)) throw new Error('faultError: neither a status nor a named error');
  const name = errorNameForStatus(respond.status) ?? 'INTERNAL_SERVER_ERROR';
  const headers: Record<string, string> = respond.retry_after !== undefined ? { 'retry-after': String(respond.retry_after) } : {};
  return new ServiceError(name, [], { headers });
}
