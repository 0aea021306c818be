import { readFile } from 'node:fs/promises';
import { Args, Flags, ux } from '@oclif/core';
import type { ApiResponse } from '../lib/api/client.js';
import { ApiError, EXIT_CODES, UsageError, exitCodeFor } from '../lib/api/errors.js';
import { sendRawRequest } from '../lib/api/raw.js';
import { BaseCommand } from '../lib/base-command.js';
import { requestIdFlag } from '../lib/flags.js';
import { readStdin } from '../lib/stdin.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

export default class Api extends BaseCommand<typeof Api> {
  static override summary = 'Make an authenticated request to any API path';

  static override description = `Sends METHOD PATH to the base URL with a bearer token from the resolved credentials and prints the response body: indented JSON on a terminal, the exact bytes when piped. Non-GET requests carry a Service-Request-Id (yours with --request-id, else a new one that is reused on retries). A header given with -H replaces the default one, so -H "Authorization: Bearer ADMIN_KEY" calls the admin endpoints of a payctl server. On an error status nothing goes to stdout: the error body goes to stderr and the exit code follows the exit-code table.`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> GET /_payctl/clock',
    `<%= config.bin %> <%= command.id %> POST /v2/payments/captures/3C679366HH908993F/refund --data '{"amount":{"value":"1.00","currency_code":"USD"}}'`,
    '<%= config.bin %> <%= command.id %> POST /_payctl/accounts -H "Authorization: Bearer $PAYCTL_ADMIN_KEY" --input body.json',
    'echo \'{}\' | <%= config.bin %> <%= command.id %> POST /_payctl/reset --input - --include',
  ];

  static override args = {
    method: Args.string({
      description: `HTTP method: ${METHODS.join(', ')}`,
      required: true,
      async parse(input) {
        const method = input.toUpperCase();
        if (!METHODS.includes(method)) throw new UsageError(`"${input}" is not one of ${METHODS.join(', ')}`);
        return method;
      },
    }),
    path: Args.string({ description: 'Path starting with /, query string included', required: true }),
  };

  static override flags = {
    data: Flags.string({ char: 'd', description: 'JSON request body', exclusive: ['input'] }),
    input: Flags.string({ description: "File holding the JSON request body ('-' reads stdin)", exclusive: ['data'] }),
    header: Flags.string({ char: 'H', description: "Extra header, 'Key: value' (repeatable)", multiple: true }),
    include: Flags.boolean({ char: 'i', description: 'Print the status line and response headers first' }),
    'request-id': requestIdFlag(),
  };

  async run(): Promise<unknown> {
    const { method, path } = this.args;
    if (!path.startsWith('/')) throw new UsageError(`PATH must start with "/"; got "${path}"`);
    const headers = parseHeaders(this.flags.header ?? []);
    const body = await this.requestBody();
    const callerAuthenticates = Object.keys(headers).some((key) => key.toLowerCase() === 'authorization');
    const response = await sendRawRequest(this.client({ credentials: !callerAuthenticates }), {
      method,
      path,
      headers,
      ...(body === undefined ? {} : { body }),
      ...this.requestOptions(),
    });
    if (this.jsonEnabled()) {
      return this.flags.include ? { status: response.status, headers: response.headers, body: response.body } : response.body;
    }
    if (this.flags.include) process.stdout.write(statusAndHeaders(response.status, response.headers));
    process.stdout.write(bodyForStdout(response));
    return response.body;
  }

  private async requestBody(): Promise<string | undefined> {
    const { data, input } = this.flags;
    if (data === undefined && input === undefined) return undefined;
    const text = data ?? (input === '-' ? await readStdin() : await readFile(input as string, 'utf8'));
    try {
      JSON.parse(text);
    } catch {
      throw new UsageError(`the request body (${data === undefined ? '--input' : '--data'}) is not valid JSON`);
    }
    return text;
  }

  /** API failures print the service's own body on stderr; everything else as every command does. */
  protected override async catch(error: Error & { exitCode?: number }): Promise<never> {
    if (!(error instanceof ApiError) || this.jsonEnabled()) return super.catch(error);
    const code = exitCodeFor(error);
    if (this.flags?.include) process.stderr.write(statusAndHeaders(error.status, error.headers));
    const pretty = process.stderr.isTTY && typeof error.rawBody === 'object' && error.rawBody !== null;
    const text = pretty ? JSON.stringify(error.rawBody, null, 2) : error.text;
    process.stderr.write(text.endsWith('\n') || text === '' ? text : `${text}\n`);
    if (code === EXIT_CODES.gaveUp && error.requestId) {
      process.stderr.write(`Gave up after ${error.attempts} attempts; retry with --request-id ${error.requestId}\n`);
    }
    return this.exit(code);
  }
}

function parseHeaders(lines: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const key = colon > 0 ? line.slice(0, colon).trim() : '';
    if (!key || /\s/.test(key)) throw new UsageError(`-H expects 'Key: value'; got "${line}"`);
    headers[key] = line.slice(colon + 1).trim();
  }
  return headers;
}

function statusAndHeaders(status: number, headers: Record<string, string>): string {
  const lines = [`HTTP ${status}`, ...Object.entries(headers).map(([key, value]) => `${key}: ${value}`)];
  return `${lines.join('\n')}\n\n`;
}

/** Pretty JSON for a person, the exact bytes for a pipe. */
function bodyForStdout(response: ApiResponse): string {
  if (response.text === '') return '';
  if (!process.stdout.isTTY) return response.text;
  if (typeof response.body === 'string') return response.text.endsWith('\n') ? response.text : `${response.text}\n`;
  return `${ux.colorizeJson(response.body, { pretty: true })}\n`;
}
