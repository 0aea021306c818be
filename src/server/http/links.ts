// HATEOAS links with absolute URLs on the host the caller used.

import type { FastifyRequest } from 'fastify';

export interface Link {
  href: string;
  rel: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
}

/** The base URL as the caller addressed the server (Host header), falling back to the socket. */
export function requestBaseUrl(request: FastifyRequest): string {
  const host = request.headers.host ?? `${request.hostname}`;
  return `${request.protocol}://${host}`;
}

export function link(baseUrl: string, path: string, rel: string, method: Link['method'] = 'GET'): Link {
  return { href: `${baseUrl}${path}`, rel, method };
}
