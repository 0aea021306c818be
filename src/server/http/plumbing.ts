// Body parsers, the error handler and the unknown-route handler: every failure in the error shape.

import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError, errorBody, newDebugId, serviceError } from './errors.js';

/** Route patterns seen at registration, to tell an unknown path (404) from a wrong method (405). */
export class RouteIndex {
  private readonly routes: Array<{ pattern: RegExp; methods: Set<string> }> = [];

  add(url: string, methods: readonly string[]): void {
    const source = url
      .split('/')
      .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    const pattern = new RegExp(`^${source}/?$`);
    const existing = this.routes.find((route) => route.pattern.source === pattern.source);
    if (existing) for (const method of methods) existing.methods.add(method);
    else this.routes.push({ pattern, methods: new Set(methods) });
  }

  methodsFor(path: string): string[] {
    const found = new Set<string>();
    for (const route of this.routes) if (route.pattern.test(path)) for (const method of route.methods) found.add(method);
    return [...found];
  }
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: ServiceError): FastifyReply {
  const debugId = newDebugId();
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  if (error.status >= 500) request.log.error({ debug_id: debugId, err: error }, 'request failed');
  return reply.code(error.status).type('application/json').send(errorBody(error, debugId));
}

/** Maps Fastify's own failures (parsing, limits, media types) to the service's errors. */
function fromFastifyError(error: FastifyError): ServiceError | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return serviceError('UNSUPPORTED_MEDIA_TYPE', 'UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json.', {
        field: 'Content-Type',
        location: 'header',
      });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return serviceError('PAYLOAD_TOO_LARGE', 'PAYLOAD_TOO_LARGE', 'The request body is larger than the server accepts.', {
        location: 'body',
      });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_INVALID_TYPE':
    case 'FST_ERR_CTP_EMPTY_TYPE':
      return serviceError('INVALID_REQUEST', 'INVALID_PARAMETER_SYNTAX', error.message, { location: 'header' });
    case 'FST_ERR_BAD_URL':
    case 'FST_ERR_ASYNC_CONSTRAINT':
      return serviceError('INVALID_REQUEST', 'INVALID_PARAMETER_SYNTAX', 'The request path is not valid.', { location: 'path' });
    default:
      break;
  }
  if (error.statusCode === 400 && /JSON|Unexpected|Body/i.test(error.message)) {
    return serviceError('INVALID_REQUEST', 'MALFORMED_REQUEST_JSON', 'The request body is not valid JSON.', { location: 'body' });
  }
  return undefined;
}

export function installPlumbing(app: FastifyInstance, routes: RouteIndex): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    // An empty JSON body means "no fields", as SDKs send for a full capture or refund.
    if (text.trim() === '') {
      done(null, {});
      return;
    }
    parseJson(request, text, (error, parsed) => {
      if (error) done(serviceError('INVALID_REQUEST', 'MALFORMED_REQUEST_JSON', 'The request body is not valid JSON.', { location: 'body' }), undefined);
      else done(null, parsed);
    });
  });
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    done(null, Object.fromEntries(new URLSearchParams(text)));
  });

  app.setErrorHandler((error: FastifyError | ServiceError, request, reply) => {
    if (error instanceof ServiceError) return sendError(request, reply, error);
    const mapped = fromFastifyError(error);
    if (mapped) return sendError(request, reply, mapped);
    request.log.error({ err: error }, 'unexpected error');
    return sendError(request, reply, new ServiceError('INTERNAL_SERVER_ERROR'));
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = routes.methodsFor(path);
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      return sendError(request, reply, new ServiceError('METHOD_NOT_SUPPORTED'));
    }
    return sendError(request, reply, new ServiceError('RESOURCE_NOT_FOUND'));
  });
}
