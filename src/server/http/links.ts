// HATEOAS links with absolute URLs on the host the caller used, when that host is one of ours.

import type { FastifyRequest } from 'fastify';
import type { ServerDeps } from '../core/deps.js';

export interface Link {
  href: string;
  rel: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
}

/** The base URL for the links of an answer: the Host the caller used if allowed, else the public URL (core/deps.ts). */
export function requestBaseUrl(deps: Pick<ServerDeps, 'linkBase'>, request: FastifyRequest): string {
  return deps.linkBase(request.headers.host);
}

export function link(baseUrl: string, path: string, rel: string, method: Link['method'] = 'GET'): Link {
  return { href: `${baseUrl}${path}`, rel, method };
}
