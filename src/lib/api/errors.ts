// Failures the CLI can meet, each knowing its exit code, and the one table that maps them.

import { oauthErrorBodySchema, serviceErrorBodySchema, type ServiceErrorBody } from './types.js';

/** The exit-code table shown in `payctl help` and the README. */
export const EXIT_CODES = {
  ok: 0,
  unexpected: 1,
  usage: 2,
  notFound: 3,
  auth: 4,
  refused: 5,
  gaveUp: 6,
  declined: 7,
  timedOut: 8,
  interrupted: 130,
} as const;

/** The error document printed on stderr (as JSON under --json). */
export interface ErrorReport extends ServiceErrorBody {
  status?: number;
  request_id?: string;
}

/** Base of every error payctl raises on purpose. */
export abstract class PayctlError extends Error {
  /** Service-Request-Id of the request that failed, when there was one. */
  requestId?: string;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
  }

  abstract get exitCode(): number;

  /** Upper-case error name, like the service's own `name`. */
  abstract get errorName(): string;

  report(): ErrorReport {
    const report: ErrorReport = { name: this.errorName, message: this.message };
    if (this.requestId) report.request_id = this.requestId;
    return report;
  }
}

const VALIDATION_NAMES = new Set(['INVALID_REQUEST', 'VALIDATION_ERROR', 'MALFORMED_REQUEST_JSON']);

export interface ApiErrorInit {
  status: number;
  /** The parsed response body, or its text when it was not JSON. */
  body: unknown;
  requestId?: string;
  /** The body text as received (secrets removed), for `payctl api`. */
  text?: string;
  /** Response headers, for `payctl api --include`. */
  headers?: Record<string, string>;
  /** How many attempts were made before giving up (1 when the answer was final at once). */
  attempts?: number;
}

/** The service answered with a non-2xx status. */
export class ApiError extends PayctlError {
  readonly status: number;
  readonly body: ServiceErrorBody;
  /** The body exactly as received, for `payctl api` and debugging. */
  readonly rawBody: unknown;
  readonly attempts: number;
  readonly headers: Record<string, string>;
  readonly text: string;

  constructor(init: ApiErrorInit) {
    const body = normalizeErrorBody(init.status, init.body);
    super(body.message);
    this.name = 'ApiError';
    this.status = init.status;
    this.body = body;
    this.rawBody = init.body;
    this.attempts = init.attempts ?? 1;
    this.headers = init.headers ?? {};
    this.text = init.text ?? (typeof init.body === 'string' ? init.body : JSON.stringify(init.body) ?? '');
    if (init.requestId) this.requestId = init.requestId;
  }

  get errorName(): string {
    return this.body.name;
  }

  get exitCode(): number {
    const { status } = this;
    if (status === 400 || VALIDATION_NAMES.has(this.body.name)) return EXIT_CODES.usage;
    if (status === 401 || status === 403) return EXIT_CODES.auth;
    if (status === 404) return EXIT_CODES.notFound;
    if (status === 409 || status === 422) return EXIT_CODES.refused;
    if (status === 429 || status >= 500) return EXIT_CODES.gaveUp;
    if (status >= 400) return EXIT_CODES.usage;
    return EXIT_CODES.unexpected;
  }

  override report(): ErrorReport {
    return { ...this.body, ...super.report(), status: this.status };
  }
}

/** Turns whatever the service sent into the standard error shape, without inventing detail. */
function normalizeErrorBody(status: number, body: unknown): ServiceErrorBody {
  const standard = serviceErrorBodySchema.safeParse(body);
  if (standard.success) return standard.data;
  const oauth = oauthErrorBodySchema.safeParse(body);
  if (oauth.success) {
    return { name: oauth.data.error, message: oauth.data.error_description ?? oauth.data.error };
  }
  const text = typeof body === 'string' ? body.trim().slice(0, 200) : '';
  return { name: `HTTP_${status}`, message: text || `the service answered HTTP ${status}` };
}

/** The service could not be reached (connection refused, reset, DNS...). */
export class NetworkError extends PayctlError {
  readonly attempts: number;

  constructor(message: string, options: { requestId?: string; attempts?: number; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'NetworkError';
    this.attempts = options.attempts ?? 1;
    if (options.requestId) this.requestId = options.requestId;
  }

  get errorName(): string {
    return 'NETWORK_ERROR';
  }

  get exitCode(): number {
    return EXIT_CODES.gaveUp;
  }
}

/** A request, or a wait for a resource to settle, took longer than allowed. */
export class TimeoutError extends PayctlError {
  override name = 'TimeoutError';
  readonly errorName = 'TIMEOUT';
  readonly exitCode = EXIT_CODES.timedOut;

  constructor(message: string, options: { requestId?: string } = {}) {
    super(message);
    if (options.requestId) this.requestId = options.requestId;
  }
}

// The errors below are the same every time but for their message: a name and an exit code each.

/** The command line was wrong or incomplete; the message says what to pass. */
export class UsageError extends PayctlError {
  override name = 'UsageError';
  readonly errorName = 'USAGE_ERROR';
  readonly exitCode = EXIT_CODES.usage;
}

/** The person answered No at a confirmation: nothing was sent. Not an interrupt (exit 130 is Ctrl+C). */
export class DeclinedError extends PayctlError {
  override name = 'DeclinedError';
  readonly errorName = 'DECLINED';
  readonly exitCode = EXIT_CODES.declined;

  constructor(message = 'nothing was changed') {
    super(message);
  }
}

/** The user stopped the command (Ctrl+C) before it finished. */
export class InterruptedError extends PayctlError {
  override name = 'InterruptedError';
  readonly errorName = 'INTERRUPTED';
  readonly exitCode = EXIT_CODES.interrupted;

  constructor(message = 'interrupted') {
    super(message);
  }
}

/** @inquirer/prompts throws these when the user presses Ctrl+C at a prompt. */
function isPromptInterrupt(error: Error): boolean {
  return error.name === 'ExitPromptError' || error.name === 'AbortPromptError';
}

/** Maps any thrown value to the process exit code. */
export function exitCodeFor(error: unknown): number {
  if (error instanceof PayctlError) return error.exitCode;
  if (!(error instanceof Error)) return EXIT_CODES.unexpected;
  if (isPromptInterrupt(error)) return EXIT_CODES.interrupted;
  // oclif's parse errors and exit requests carry their code; its parse errors use 2.
  const oclifExit = (error as { oclif?: { exit?: unknown } }).oclif?.exit;
  if (typeof oclifExit === 'number') return oclifExit;
  return EXIT_CODES.unexpected;
}

/** The error document for any thrown value. */
export function errorReportFor(error: unknown): ErrorReport {
  if (error instanceof PayctlError) return error.report();
  if (error instanceof Error) {
    const usage = exitCodeFor(error) === EXIT_CODES.usage;
    const interrupted = exitCodeFor(error) === EXIT_CODES.interrupted;
    const name = usage ? 'USAGE_ERROR' : interrupted ? 'INTERRUPTED' : 'UNEXPECTED_ERROR';
    // The prompt library's own wording ("User force closed the prompt with SIGINT") is not ours.
    if (isPromptInterrupt(error)) return { name, message: 'interrupted (Ctrl+C) at the prompt' };
    return { name, message: error.message.replace(/\nSee more help with --help$/, '') };
  }
  return { name: 'UNEXPECTED_ERROR', message: String(error) };
}
