// The Prefer header: return=minimal (the default) or return=representation.

import type { FastifyRequest } from 'fastify';

export type ReturnPreference = 'minimal' | 'representation';

export function returnPreference(request: FastifyRequest, fallback: ReturnPreference = 'minimal'): ReturnPreference {
  const header = request.headers.prefer;
  const text = Array.isArray(header) ? header.join(',') : header ?? '';
  for (const part of text.split(/[;,]/)) {
    const [key, value] = part.trim().split('=').map((piece) => piece.trim().toLowerCase());
    if (key === 'return' && (value === 'minimal' || value === 'representation')) return value;
  }
  return fallback;
}

/** The minimal body: id, status and links of a resource. */
export function minimalBody(resource: { id: string; status?: string; links?: unknown }): Record<string, unknown> {
  const body: Record<string, unknown> = { id: resource.id };
  if (resource.status !== undefined) body.status = resource.status;
  if (resource.links !== undefined) body.links = resource.links;
  return body;
}

export function shapeForPreference<T extends { id: string; status?: string; links?: unknown }>(
  resource: T,
  preference: ReturnPreference,
): T | Record<string, unknown> {
  return preference === 'representation' ? resource : minimalBody(resource);
}
