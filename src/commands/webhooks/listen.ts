import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Flags } from '@oclif/core';
import type { ApiClient } from '../../lib/api/client.js';
import { UsageError } from '../../lib/api/errors.js';
import {
  createWebhook,
  deleteWebhook,
  eventResourceId,
  expandEventTypes,
  fetchCertificate,
  joinUrl,
  listEventTypes,
  listEvents,
  signatureHeadersFrom,
  signatureMatches,
  type WebhookEvent,
} from '../../lib/api/webhooks.js';
import { BaseCommand } from '../../lib/base-command.js';
import { formatDate } from '../../lib/render/format.js';

/** One printed line (or NDJSON object) per event. */
interface ListenRecord {
  received_at: string;
  event_id: string;
  event_type: string;
  resource_id: string;
  create_time: string;
  path: string | null;
  webhook_id: string | null;
  /** Checked locally against the certificate; null when following the history (nothing signed). */
  signature_valid: boolean | null;
  forwarded_to: string | null;
  /** The forward target's HTTP status, which is also what the service is answered. */
  status: number | null;
  error: string | null;
  duration_ms: number | null;
}

const FORWARD_TIMEOUT_MS = 10_000;
const POLL_INTERVAL_MS = 2_000;
/** Headers passed on to --forward-to as they came. */
const FORWARDED_HEADER = /^(content-type|user-agent|paypal-.*|service-.*)$/i;

function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

export default class WebhooksListen extends BaseCommand<typeof WebhooksListen> {
  static override summary = 'Receive events on this machine while the command runs';

  static override description = `Against a payctl server on this machine: starts a receiver on 127.0.0.1, subscribes it for the session, and prints one line per delivery (the event's time on the account's clock, the same as webhooks trigger shows, event type, resource id, result), or NDJSON with --json. Each signature is checked against the service's certificate.

With --forward-to, each delivery is passed on unchanged (body bytes and signature headers) to that URL joined with the event's receiver path, and the target's answer is shown and given back to the service, so a failing target gets the service's retries.

Against a service that cannot reach this machine (a base URL that is not loopback), or with --poll, it follows the event history instead (every 2 s) and forwards the event bodies unsigned.

Ctrl-C (or SIGTERM) removes the subscription and exits 0.`;

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    "<%= config.bin %> <%= command.id %> --forward-to http://localhost:3000/webhooks --events 'PAYMENT.CAPTURE.*'",
    '<%= config.bin %> <%= command.id %> --json | jq .event_type',
  ];

  static override flags = {
    'forward-to': Flags.string({ description: 'Pass each delivery on to this URL (plus the receiver path)' }),
    events: Flags.string({ description: 'Comma-separated event types or globs; * for all', default: '*' }),
    port: Flags.integer({ description: 'Port of the local receiver (0 = any free port)', default: 0, min: 0, max: 65_535 }),
    poll: Flags.boolean({ description: 'Follow the event history instead of receiving deliveries' }),
  };

  readonly #certificates = new Map<string, Promise<string>>();

  async run(): Promise<void> {
    const client = this.client();
    const forwardTo = this.flags['forward-to'];
    if (forwardTo !== undefined && !/^https?:\/\//.test(forwardTo)) throw new UsageError('--forward-to must be an http or https URL');
    const patterns = this.flags.events.split(',');
    let eventTypes: string[];
    try {
      const known = patterns.some((pattern) => pattern.includes('*') && pattern.trim() !== '*') ? (await listEventTypes(client)).event_types : [];
      eventTypes = expandEventTypes(patterns, known);
    } catch (error) {
      throw new UsageError(`--events: ${(error as Error).message}`);
    }
    const stopped = this.untilStopped();
    if (this.flags.poll || !isLoopback(new URL(client.baseUrl).hostname)) await this.follow(client, eventTypes, stopped);
    else await this.receive(client, eventTypes, stopped);
  }

  /** Resolves on Ctrl-C or SIGTERM. The base command's Ctrl-C handler (exit 130 at once) is replaced: cleanup comes first. */
  private untilStopped(): Promise<NodeJS.Signals> {
    for (const listener of process.listeners('SIGINT')) process.off('SIGINT', listener);
    return new Promise((resolve) => {
      process.once('SIGINT', () => resolve('SIGINT'));
      process.once('SIGTERM', () => resolve('SIGTERM'));
    });
  }

  private async receive(client: ApiClient, eventTypes: string[], stopped: Promise<NodeJS.Signals>): Promise<void> {
    let webhookId: string | null = null;
    const server: Server = createServer((request, response) => {
      void this.onDelivery(request, response, webhookId).catch((error: unknown) => {
        this.notice(`listen: ${(error as Error).message}`);
        if (!response.headersSent) response.writeHead(500).end();
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.flags.port, '127.0.0.1', () => resolve());
    });
    const port = (server.address() as AddressInfo).port;
    try {
      const webhook = await createWebhook(client, { url: `http://127.0.0.1:${port}/`, eventTypes });
      webhookId = webhook.id;
      const forward = this.flags['forward-to'];
      this.notice(
        `Listening on http://127.0.0.1:${port} as webhook ${webhook.id} for ${eventTypes.join(', ')}` +
          `${forward ? `; forwarding to ${forward}` : ''}. Times are the events' own, on the account's clock. Press Ctrl-C to stop.`,
      );
      const signal = await stopped;
      this.notice(`${signal}: removing webhook ${webhook.id}`);
      await deleteWebhook(client, webhook.id).catch((error: unknown) => this.notice(`could not remove webhook ${webhook.id}: ${(error as Error).message}`));
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  private async onDelivery(request: IncomingMessage, response: ServerResponse, webhookId: string | null): Promise<void> {
    const body = await readBody(request);
    let event: WebhookEvent;
    try {
      event = JSON.parse(body.toString('utf8')) as WebhookEvent;
    } catch {
      response.writeHead(400).end();
      return;
    }
    const path = request.url ?? '/';
    const record = this.recordOf(event, path, webhookId);
    const signature = signatureHeadersFrom(request.headers);
    if (signature && webhookId) {
      const pem = await this.certificate(signature.cert_url).catch(() => undefined);
      record.signature_valid = pem !== undefined && (await signatureMatches(pem, signature, webhookId, body));
    } else {
      record.signature_valid = false;
    }
    const forwardTo = this.flags['forward-to'];
    if (forwardTo) {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) {
        if (FORWARDED_HEADER.test(name) && typeof value === 'string') headers[name] = value;
      }
      await this.forward(record, joinUrl(forwardTo, path), headers, body);
    } else {
      record.status = 200;
    }
    // A target that failed or could not be reached makes the service retry, as it would for the target itself.
    response.writeHead(record.status ?? 502).end();
    this.print(record);
  }

  private async forward(record: ListenRecord, url: string, headers: Record<string, string>, body: Buffer | string): Promise<void> {
    const { request } = await import('undici');
    const started = Date.now();
    record.forwarded_to = url;
    try {
      const answer = await request(url, {
        method: 'POST',
        headers,
        body,
        headersTimeout: FORWARD_TIMEOUT_MS,
        bodyTimeout: FORWARD_TIMEOUT_MS,
      });
      await answer.body.dump();
      record.status = answer.statusCode;
    } catch (error) {
      record.error = (error as Error).message;
    }
    record.duration_ms = Date.now() - started;
  }

  private certificate(url: string): Promise<string> {
    let pending = this.#certificates.get(url);
    if (!pending) {
      pending = fetchCertificate(url);
      pending.catch(() => this.#certificates.delete(url));
      this.#certificates.set(url, pending);
    }
    return pending;
  }

  private recordOf(event: WebhookEvent, path: string | null, webhookId: string | null): ListenRecord {
    return {
      received_at: new Date().toISOString(),
      event_id: String(event.id),
      event_type: String(event.event_type),
      resource_id: eventResourceId(event),
      create_time: String(event.create_time),
      path,
      webhook_id: webhookId,
      signature_valid: null,
      forwarded_to: null,
      status: null,
      error: null,
      duration_ms: null,
    };
  }

  private print(record: ListenRecord): void {
    if (this.jsonEnabled()) {
      process.stdout.write(`${JSON.stringify(record)}\n`);
      return;
    }
    let result: string;
    if (record.error) result = `-> ${record.forwarded_to}: ${record.error}`;
    else if (record.forwarded_to) result = `-> ${record.status} (${record.duration_ms} ms)`;
    else result = record.signature_valid === null ? 'seen' : 'received';
    const flag = record.signature_valid === false ? '  [signature INVALID]' : '';
    // The event's time (the account's clock, as trigger and events list show it), not when this
    // machine received it: the two differ by as much as `sandbox clock` moved the account on.
    process.stdout.write(`${formatDate(record.create_time)}  ${record.event_type}  ${record.resource_id}  ${result}${flag}\n`);
  }

  /** Polls the event history, printing (and forwarding, unsigned) each event not seen before. */
  private async follow(client: ApiClient, eventTypes: string[], stopped: Promise<NodeJS.Signals>): Promise<void> {
    const wanted = (type: string) => eventTypes.includes('*') || eventTypes.includes(type);
    const seen = new Set((await listEvents(client, { pageSize: 100 })).events.map((event) => event.id));
    const forwardTo = this.flags['forward-to'];
    this.notice(
      `Following the event history of ${client.baseUrl} every ${POLL_INTERVAL_MS / 1000} s for ${eventTypes.join(', ')}` +
        `${forwardTo ? `; forwarding bodies (unsigned) to ${forwardTo}` : ''}. Times are the events' own, on the account's clock. Press Ctrl-C to stop.`,
    );
    let done = false;
    void stopped.then(() => {
      done = true;
    });
    while (!done) {
      const page = await listEvents(client, { pageSize: 100 }).catch((error: unknown) => {
        this.notice(`listen: ${(error as Error).message}`);
        return { events: [] as WebhookEvent[] };
      });
      for (const event of [...page.events].reverse()) {
        if (seen.has(event.id)) continue;
        seen.add(event.id);
        if (!wanted(event.event_type)) continue;
        const record = this.recordOf(event, null, null);
        if (forwardTo) await this.forward(record, forwardTo, { 'content-type': 'application/json' }, JSON.stringify(event));
        this.print(record);
      }
      await Promise.race([stopped, new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS))]);
    }
  }
}
