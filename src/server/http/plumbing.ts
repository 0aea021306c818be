// Body parsers, the error handler and the unknown-route handler: every failure in the error shape.

import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError, errorBody, newDebugId, serviceError, type IssueCode } from './errors.js';
import { nestingProblem } from './json-depth.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route also takes application/x-www-form-urlencoded bodies (the token endpoint, the payer page). */
    form?: boolean;
  }
}

const unsupportedMediaType = (): ServiceError =>
  serviceError('UNSUPPORTED_MEDIA_TYPE', 'UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json.', {
    field: 'Content-Type',
    location: 'header',
  });

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Route patterns seen at registration, to tell an unknown path (404) from a wrong method (405). The
 * patterns are compiled on the first unknown path, not at registration: ~85 regular expressions
 * built while the server starts were ~1-2 ms of every `payctl serve` launch.
 */
export class RouteIndex {
  private readonly registered: Array<{ url: string; methods: readonly string[] }> = [];
  /** By pattern source: the methods of one path (GET and POST, say) share an entry. */
  private compiled: Map<string, { pattern: RegExp; methods: Set<string> }> | undefined;

  add(url: string, methods: readonly string[]): void {
    this.registered.push({ url, methods });
    this.compiled = undefined;
  }

  private patterns(): Map<string, { pattern: RegExp; methods: Set<string> }> {
    if (this.compiled) return this.compiled;
    const routes = new Map<string, { pattern: RegExp; methods: Set<string> }>();
    for (const { url, methods } of this.registered) {
      const source = url
        .split('/')
        .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
        .join('/');
      const existing = routes.get(source);
      if (existing) for (const method of methods) existing.methods.add(method);
      else routes.set(source, { pattern: new RegExp(`^${source}/?$`), methods: new Set(methods) });
    }
    this.compiled = routes;
    return routes;
  }

  methodsFor(path: string): string[] {
    const found = new Set<string>();
    for (const route of this.patterns().values()) if (route.pattern.test(path)) for (const method of route.methods) found.add(method);
    // A GET route answers HEAD too (app.ts serves HEAD as GET).
    if (found.has('GET')) found.add('HEAD');
    return [...found];
  }
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: ServiceError): FastifyReply {
  return reply.send(errorAnswer(request, reply, error));
}

/** `error`'s status and headers set on the reply, and its body (for an answer replaced once on its way: onSend). */
export function errorAnswer(request: FastifyRequest, reply: FastifyReply, error: ServiceError): ReturnType<typeof errorBody> {
  const debugId = newDebugId();
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  if (error.status >= 500) request.log.error({ debug_id: debugId, err: error }, 'request failed');
  reply.code(error.status).type('application/json');
  return errorBody(error, debugId);
}

/** Maps Fastify's own failures (parsing, limits, media types) to the service's errors. */
function fromFastifyError(error: FastifyError): ServiceError | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return unsupportedMediaType();
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
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return serviceError('INVALID_REQUEST', 'INVALID_STRING_MAX_LENGTH', 'A path parameter is longer than the server accepts.', { location: 'path' });
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
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    let text: string;
    try {
      // JSON text is UTF-8: invalid bytes are a malformed body, not characters to replace.
      text = strictUtf8.decode(typeof body === 'string' ? Buffer.from(body, 'utf8') : body);
    } catch {
      done(serviceError('INVALID_REQUEST', 'MALFORMED_REQUEST_JSON', 'The request body is not valid UTF-8.', { location: 'body' }), undefined);
      return;
    }
    // An empty JSON body means "no fields", as SDKs send for a full capture or refund.
    if (text.trim() === '') {
      done(null, {});
      return;
    }
    // Before anything else sees the body: too deep is refused without being parsed.
    const tooDeep = nestingProblem(text);
    if (tooDeep) {
      done(tooDeep, undefined);
      return;
    }
    parseJson(request, text, (error, parsed) => {
      if (error) done(serviceError('INVALID_REQUEST', 'MALFORMED_REQUEST_JSON', 'The request body is not valid JSON.', { location: 'body' }), undefined);
      else done(null, parsed);
    });
  });
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (request.routeOptions.config.form !== true) {
      // An empty body is no body whatever its label (axios labels an empty POST as a form).
      if (text.length === 0) done(null, {});
      else done(unsupportedMediaType(), undefined);
      return;
    }
    done(null, Object.fromEntries(new URLSearchParams(text)));
  });
  // Any other media type: an empty body is no body; a non-empty one is refused with 415.
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => {
    if (body.length === 0) done(null, {});
    else done(unsupportedMediaType(), undefined);
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

/** Fastify's own refusals before routing (bad escapes, over-long path parameters), in the error shape. */
export function sendFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendError(request, reply, fromFastifyError(error) ?? serviceError('INVALID_REQUEST', 'INVALID_PARAMETER_SYNTAX', 'The request is not valid.', { location: 'path' }));
}

const CLIENT_ERRORS: Record<string, { status: number; issue: IssueCode; description: string; location: 'header' | 'body' }> = {
  HPE_HEADER_OVERFLOW: { status: 431, issue: 'INVALID_STRING_MAX_LENGTH', description: 'The request line and headers are larger than the server accepts.', location: 'header' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, issue: 'REQUEST_TIMEOUT', description: 'The request was not received in time.', location: 'header' },
};

/**
 * Requests Node's HTTP parser refuses never reach Fastify: answer them in the error shape too, with
 * their HTTP status (400, 408 or 431), then close the connection.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  // As Node does: answer unless a response in flight on this connection has already started.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (!socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const known = CLIENT_ERRORS[error.code ?? ''];
  const status = known?.status ?? 400;
  const body = JSON.stringify(
    errorBody(
      serviceError('INVALID_REQUEST', known?.issue ?? 'MALFORMED_REQUEST', known?.description ?? 'The request is not valid HTTP.', { location: known?.location ?? 'header' }),
      newDebugId(),
    ),
  );
  const reason = status === 431 ? 'Request Header Fields Too Large' : status === 408 ? 'Request Timeout' : 'Bad Request';
  const answer = `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`;
  socket.end(answer, () => socket.destroy());
}
