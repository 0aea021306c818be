// HTTP to the payments API: OAuth tokens, retries that reuse one request id, per-attempt timeouts.

import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError, NetworkError, TimeoutError, UsageError } from './errors.js';
import { lowerCaseKeys, parseBody, retryAfterMs, sendOnce, type Exchange, type RawResponse } from './transport.js';
import {
  memoryTokenCache,
  tokenResponseSchema,
  type CachedToken,
  type TokenCache,
  type TokenResponse,
} from './types.js';

/** What a client does when its options do not say (the timeout may also come from PAYCTL_TIMEOUT_MS). */
const DEFAULTS = { timeoutMs: 30_000, retries: 3, backoffMs: 250 } as const;
/** Backoff doubles per attempt up to `backoffMs`; a Retry-After is honoured up to `retryAfterMs`. */
const CEILINGS = { backoffMs: 10_000, retryAfterMs: 60_000 } as const;

/**
 * The request id and the assertion go under both their names, with one value: a deployment that
 * honours only the PayPal-* name (the public service) must see the same key a payctl server sees,
 * or a retried capture would run twice there.
 */
const HEADER_ALIASES: ReadonlyArray<readonly [string, string]> = [
  ['service-request-id', 'paypal-request-id'],
  ['service-auth-assertion', 'paypal-auth-assertion'],
];

function sendUnderBothNames(headers: Record<string, string>): void {
  for (const [ours, theirs] of HEADER_ALIASES) {
    const value = headers[ours] ?? headers[theirs];
    if (value === undefined) continue;
    headers[ours] = value;
    headers[theirs] = value;
  }
}

export interface ApiClientOptions {
  baseUrl: string;
  clientId?: string;
  clientSecret?: string;
  /** Per attempt; defaults to PAYCTL_TIMEOUT_MS or 30 s. */
  timeoutMs?: number;
  /** Extra attempts after the first on network errors, 429 and 5xx. */
  retries?: number;
  tokenCache?: TokenCache;
  /** First backoff step; doubled on each retry, plus jitter. */
  backoffMs?: number;
  userAgent?: string;
}

export type QueryValue = string | number | boolean | undefined | readonly string[];

export interface ApiRequest {
  method: string;
  path: string;
  query?: Record<string, QueryValue>;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent exactly as given (as JSON unless `headers` sets content-type, e.g. multipart bytes); wins over `body`. */
  rawBody?: string | Uint8Array;
  headers?: Record<string, string>;
  requestId?: string;
  prefer?: string;
}

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Record<string, string>;
  /** Parsed JSON when the service sent JSON, else the text. */
  body: T;
  text: string;
  requestId?: string;
}

/** A final answer, after however many attempts it took. */
interface FinalResponse extends RawResponse {
  attempts: number;
}

export class ApiClient {
  readonly baseUrl: string;
  readonly clientId: string | undefined;
  readonly #clientSecret: string | undefined;
  readonly #timeoutMs: number;
  readonly #retries: number;
  readonly #backoffMs: number;
  readonly #tokens: TokenCache;
  readonly #userAgent: string;
  #lastToken: string | undefined;
  /** Whether the bearer token of the current call came from the cache (and so may be stale). */
  #lastTokenWasCached = false;

  constructor(options: ApiClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.clientId = options.clientId;
    this.#clientSecret = options.clientSecret;
    this.#timeoutMs = options.timeoutMs ?? timeoutFromEnv() ?? DEFAULTS.timeoutMs;
    this.#retries = options.retries ?? DEFAULTS.retries;
    this.#backoffMs = options.backoffMs ?? DEFAULTS.backoffMs;
    this.#tokens = options.tokenCache ?? memoryTokenCache();
    this.#userAgent = options.userAgent ?? 'payctl';
  }

  /** A usable access token: the cached one unless `fresh`, else a new one (which is cached). */
  async getToken(options: { fresh?: boolean } = {}): Promise<CachedToken> {
    const { clientId } = this.#requireCredentials();
    if (!options.fresh) {
      const cached = this.#cachedToken(clientId);
      if (cached) return cached;
    }
    return this.#toCachedToken(await this.fetchToken());
  }

  /** Always asks the service for a new token, caches it and returns the service's answer. */
  async fetchToken(): Promise<TokenResponse> {
    const { clientId, clientSecret } = this.#requireCredentials();
    const basic = Buffer.from(`${clientId}:${clientSecret}`).toString('base64');
    const raw = await this.#withRetries(
      {
        method: 'POST',
        url: `${this.baseUrl}/v1/oauth2/token`,
        headers: {
          authorization: `Basic ${basic}`,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: 'grant_type=client_credentials',
      },
      undefined,
    );
    const body = parseBody(raw);
    if (raw.status < 200 || raw.status >= 300) throw this.#apiError(raw, body, undefined);
    const parsed = tokenResponseSchema.safeParse(body);
    if (!parsed.success) {
      // A 2xx without a token: most likely the base URL points at something that is not this API.
      throw new ApiError({
        status: raw.status,
        body: { name: 'INVALID_TOKEN_RESPONSE', message: `${this.baseUrl}/v1/oauth2/token answered without an access token` },
      });
    }
    this.#tokens.set(this.baseUrl, clientId, this.#toCachedToken(parsed.data));
    return parsed.data;
  }

  /**
   * One API call. Non-GET calls always carry a Service-Request-Id, the same on every retry, so the
   * service can recognise a repeat. A caller-given Authorization header replaces the bearer token.
   */
  async request<T = unknown>(req: ApiRequest): Promise<ApiResponse<T>> {
    const method = req.method.toUpperCase();
    const callerHeaders = lowerCaseKeys(req.headers ?? {});
    const requestId =
      // An empty id counts as none, so that callers may pass an option through as it is.
      (req.requestId || undefined) ?? callerHeaders['service-request-id'] ?? callerHeaders['paypal-request-id'] ?? (method === 'GET' ? undefined : randomUUID());
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': this.#userAgent };
    if (req.prefer) headers.prefer = req.prefer;
    const body = req.rawBody ?? (req.body === undefined ? undefined : JSON.stringify(req.body));
    if (body !== undefined) headers['content-type'] = 'application/json';
    Object.assign(headers, callerHeaders);
    if (requestId) headers['service-request-id'] = requestId;
    sendUnderBothNames(headers);

    const exchange: Exchange = { method, url: this.#url(req.path, req.query), headers };
    if (body !== undefined) exchange.body = body;
    const useBearer = callerHeaders.authorization === undefined;

    let raw: FinalResponse;
    try {
      if (useBearer) headers.authorization = `Bearer ${await this.#bearer(false)}`;
      raw = await this.#withRetries(exchange, requestId);
      if (raw.status === 401 && useBearer && this.#lastTokenWasCached) {
        // The cached token may have been revoked or the server restarted: one fresh token, one retry.
        headers.authorization = `Bearer ${await this.#bearer(true)}`;
        raw = await this.#withRetries(exchange, requestId);
      }
    } catch (error) {
      if (error instanceof ApiError || error instanceof NetworkError || error instanceof TimeoutError) {
        error.requestId ??= requestId;
      }
      throw error;
    }
    const parsed = parseBody(raw);
    if (raw.status >= 400) throw this.#apiError(raw, parsed, requestId);
    const response: ApiResponse<T> = { status: raw.status, headers: raw.headers, body: parsed as T, text: raw.text };
    if (requestId) response.requestId = requestId;
    return response;
  }

  async #bearer(fresh: boolean): Promise<string> {
    const { clientId } = this.#requireCredentials();
    const cached = fresh ? undefined : this.#cachedToken(clientId);
    this.#lastTokenWasCached = cached !== undefined;
    const token = cached ?? (await this.getToken({ fresh: true }));
    this.#lastToken = token.access_token;
    return token.access_token;
  }

  /** The cached token, if it was issued for the secret this client holds. */
  #cachedToken(clientId: string): CachedToken | undefined {
    const cached = this.#tokens.get(this.baseUrl, clientId);
    return cached && cached.secret_fingerprint === this.#secretFingerprint() ? cached : undefined;
  }

  #secretFingerprint(): string {
    return createHash('sha256').update(this.#clientSecret ?? '').digest('hex').slice(0, 16);
  }

  #toCachedToken(token: TokenResponse): CachedToken {
    return {
      access_token: token.access_token,
      expires_at: new Date(Date.now() + token.expires_in * 1000).toISOString(),
      app_id: token.app_id,
      scope: token.scope,
      secret_fingerprint: this.#secretFingerprint(),
    };
  }

  #requireCredentials(): { clientId: string; clientSecret: string } {
    if (!this.clientId || !this.#clientSecret) {
      throw new UsageError(
        'no client credentials: run `payctl auth login`, or pass --client-id and --client-secret ' +
          '(or set PAYCTL_CLIENT_ID and PAYCTL_CLIENT_SECRET)',
      );
    }
    return { clientId: this.clientId, clientSecret: this.#clientSecret };
  }

  #url(path: string, query: Record<string, QueryValue> | undefined): string {
    const url = `${this.baseUrl}${path.startsWith('/') ? '' : '/'}${path}`;
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value === undefined) continue;
      if (Array.isArray(value)) for (const item of value) params.append(key, item);
      else params.append(key, String(value));
    }
    const search = params.toString();
    if (!search) return url;
    return `${url}${url.includes('?') ? '&' : '?'}${search}`;
  }

  /** Sends until the answer is final: retries network errors, 429 and 5xx with backoff. */
  async #withRetries(exchange: Exchange, requestId: string | undefined): Promise<FinalResponse> {
    for (let attempt = 1; ; attempt++) {
      const canRetry = attempt <= this.#retries;
      let raw: FinalResponse;
      try {
        const answer = await sendOnce(exchange, { timeoutMs: this.#timeoutMs, ...(requestId ? { requestId } : {}) });
        raw = { ...answer, attempts: attempt };
      } catch (error) {
        if (error instanceof NetworkError && canRetry) {
          await sleep(this.#backoff(attempt));
          continue;
        }
        if (error instanceof NetworkError) {
          throw new NetworkError(`${error.message} (gave up after ${attempt} attempts). ${unreachableHint(this.baseUrl)}`, {
            attempts: attempt,
            cause: error.cause,
            ...(requestId ? { requestId } : {}),
          });
        }
        throw error;
      }
      const retryable = raw.status === 429 || raw.status >= 500;
      if (!retryable || !canRetry) return raw;
      await sleep(retryAfterMs(raw.headers['retry-after'], CEILINGS.retryAfterMs) ?? this.#backoff(attempt));
    }
  }

  #backoff(attempt: number): number {
    const step = Math.min(this.#backoffMs * 2 ** (attempt - 1), CEILINGS.backoffMs);
    return step + Math.floor(Math.random() * this.#backoffMs);
  }

  /** The error for a refused request, with the secrets kept out of its body and text. */
  #apiError(raw: FinalResponse, body: unknown, requestId: string | undefined): ApiError {
    const { status, headers, attempts } = raw;
    return new ApiError({ status, body: this.#redact(body), headers, text: this.#redactText(raw.text), attempts, requestId });
  }

  /** Keeps the client secret and tokens out of anything that may be printed. */
  #redact(value: unknown): unknown {
    if (typeof value === 'string') return this.#redactText(value);
    const json = JSON.stringify(value);
    if (json === undefined) return value;
    const redacted = this.#redactText(json);
    return redacted === json ? value : (JSON.parse(redacted) as unknown);
  }

  #redactText(text: string): string {
    let result = text;
    for (const secret of [this.#clientSecret, this.#lastToken]) {
      if (secret && secret.length >= 8) result = result.split(secret).join('[REDACTED]');
    }
    return result;
  }
}

function timeoutFromEnv(): number | undefined {
  const raw = process.env.PAYCTL_TIMEOUT_MS;
  if (!raw) return undefined;
  const value = Number.parseInt(raw, 10);
  return Number.isFinite(value) && value > 0 ? value : undefined;
}

/** What to do when the server cannot be reached: on this machine, start one; elsewhere, check the URL. */
export function unreachableHint(baseUrl: string): string {
  let host = '';
  try {
    host = new URL(baseUrl).hostname;
  } catch {
    // An unparsable URL gets the general advice.
  }
  const local = host === 'localhost' || host === '[::1]' || host === '::1' || /^127\./.test(host);
  return local
    ? 'Is a server running there? Start one with `payctl serve` (it saves the "local" profile), or point --base-url / PAYCTL_BASE_URL at yours.'
    : 'Check the base URL (--base-url, PAYCTL_BASE_URL or the profile: payctl auth list) and the network.';
}
