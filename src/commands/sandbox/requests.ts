import { Flags } from '@oclif/core';
import { UsageError } from '../../lib/api/errors.js';
import { listJournal, type JournalEntry, type JournalPage, type JournalQuery } from '../../lib/api/sandbox.js';
import { BaseCommand } from '../../lib/base-command.js';
import { colorStatus, stdoutChalk } from '../../lib/render/colors.js';
import { JOURNAL_COLUMNS, checkStatusFilter, followJournal, pathWithQuery, sinceTime } from '../../lib/scenario-journal.js';

export default class SandboxRequests extends BaseCommand<typeof SandboxRequests> {
  static override summary = 'List the API requests your account made to a payctl server (the request journal)';

  static override description = `Every request to a payctl server is recorded with its answer: time, method, path, status, duration, request id and the fault rule that answered it, if any. Newest first; one line a request on a terminal, TSV when piped, the API's page with --json.

--follow prints the latest few, then each new request as it arrives (every 0.4 s), oldest first, until Ctrl-C; with --json, one JSON object a line (NDJSON). \`payctl sandbox requests get ID\` shows one request with its headers and both bodies.`;

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    "<%= config.bin %> <%= command.id %> --path '/v2/payments/*' --status 5xx",
    '<%= config.bin %> <%= command.id %> --follow',
    '<%= config.bin %> <%= command.id %> --follow --json | jq .path',
  ];

  static override flags = {
    path: Flags.string({ description: 'Only paths starting with this, or matching it with * for one segment' }),
    method: Flags.string({ description: 'Only this HTTP method (GET, POST, PATCH, DELETE...)' }),
    status: Flags.string({ description: 'Only this status (404) or class (4xx)' }),
    since: Flags.string({ description: 'Only requests since this time (RFC 3339) or this long ago (10m, 2h, 1d)' }),
    'request-id': Flags.string({ description: 'Only requests with this request id' }),
    limit: Flags.integer({ description: 'How many to show (1 to 100; with --follow, how many earlier ones first)', min: 0, max: 100 }),
    follow: Flags.boolean({ char: 'f', description: 'Keep printing new requests as they arrive, until Ctrl-C' }),
  };

  async run(): Promise<JournalPage | void> {
    const client = this.client();
    const filters = this.filters();
    if (this.flags.follow) return this.follow(client, filters);
    const page = await listJournal(client, { ...filters, pageSize: this.flags.limit || 25 });
    this.renderTable(page.items, JOURNAL_COLUMNS);
    if (page.items.length === 0) this.notice('No requests match.');
    return page;
  }

  private filters(): JournalQuery {
    const { path, method, status, since } = this.flags;
    try {
      return {
        ...(path ? { path } : {}),
        ...(method ? { method: method.toUpperCase() } : {}),
        ...(status ? { status: checkStatusFilter(status) } : {}),
        ...(since ? { since: sinceTime(since) } : {}),
        ...(this.flags['request-id'] ? { requestId: this.flags['request-id'] } : {}),
      };
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
  }

  private async follow(client: ReturnType<SandboxRequests['client']>, filters: JournalQuery): Promise<void> {
    const stopped = this.untilStopped();
    const json = this.jsonEnabled();
    const tty = Boolean(process.stdout.isTTY);
    if (!json && !tty) process.stdout.write(`${JOURNAL_COLUMNS.map((column) => column.header).join('\t')}\n`);
    await followJournal(client, filters, {
      backlog: this.flags.limit ?? 10,
      stopped,
      warn: (message) => this.notice(message),
      ready: () => this.notice(`Following requests to ${client.baseUrl}. Press Ctrl-C to stop.`),
      print: (entry) => {
        if (process.stdout.destroyed) return;
        process.stdout.write(`${json ? JSON.stringify(entry) : tty ? terminalLine(entry) : tsvLine(entry)}\n`);
      },
    });
  }

  /**
   * Resolves on Ctrl-C, SIGTERM or a reader that went away (EPIPE): each ends the follow with exit 0.
   * The base command's Ctrl-C handler (exit 130 at once) is replaced: a follow is meant to be stopped.
   */
  private untilStopped(): Promise<string> {
    for (const listener of process.listeners('SIGINT')) process.off('SIGINT', listener);
    return new Promise((resolve) => {
      process.once('SIGINT', () => resolve('SIGINT'));
      process.once('SIGTERM', () => resolve('SIGTERM'));
      process.stdout.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code === 'EPIPE') resolve('EPIPE');
      });
    });
  }
}

function tsvLine(entry: JournalEntry): string {
  return JOURNAL_COLUMNS.map((column) => (column.value(entry) ?? '').replace(/[\t\r\n]+/g, ' ')).join('\t');
}

/** A fixed-width line, so that lines printed one at a time still line up. */
function terminalLine(entry: JournalEntry): string {
  const chalk = stdoutChalk();
  const time = entry.time.replace(/^\d{4}-\d\d-\d\dT/, '').replace(/Z$/, '');
  const status = entry.status === null || entry.status === undefined ? '---' : String(entry.status);
  const painted = entry.status && entry.status >= 500 ? chalk.red(status) : entry.status && entry.status >= 400 ? chalk.yellow(status) : colorStatus(status, chalk);
  const duration = `${entry.duration_ms ?? '-'} ms`.padStart(8);
  const fault = entry.fault_id ? chalk.magenta(` fault ${entry.fault_id}`) : '';
  return `${chalk.dim(time.padEnd(12))}  ${entry.method.padEnd(6)}  ${painted}  ${duration}  ${pathWithQuery(entry)}  ${chalk.dim(entry.request_id ?? '')}${fault}  ${chalk.dim(entry.id)}`;
}
