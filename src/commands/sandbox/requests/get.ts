import { Args } from '@oclif/core';
import { getJournalEntry, type JournalDetail } from '../../../lib/api/sandbox.js';
import { BaseCommand } from '../../../lib/base-command.js';
import { formatDate } from '../../../lib/render/format.js';
import { pathWithQuery } from '../../../lib/scenario-journal.js';

export default class SandboxRequestsGet extends BaseCommand<typeof SandboxRequestsGet> {
  static override summary = 'Show one recorded request: its headers and both bodies';

  static override description = `Shows a request from the journal (ids from \`payctl sandbox requests\`): when, what, the answer's status and duration, the request headers (secrets masked by the server), the request body and the answer's body, pretty-printed on a terminal. --json prints the entry exactly as the server keeps it; bodies past the server's cap say so.`;

  static override examples = ['<%= config.bin %> <%= command.id %> REQ-8X2C0F5B1M', '<%= config.bin %> <%= command.id %> REQ-8X2C0F5B1M --json | jq .response_body'];

  static override args = { id: Args.string({ description: 'Journal entry id', required: true }) };

  async run(): Promise<JournalDetail> {
    const entry = await getJournalEntry(this.client(), this.args.id);
    const truncated = (field: string) => ((entry as Record<string, unknown>)[`${field}_truncated`] ? ' (truncated)' : '');
    this.renderDetail([
      ['ID', entry.id],
      ['Time', formatDate(entry.time)],
      ['Account time', formatDate(entry.account_time ?? undefined)],
      ['Request', `${entry.method} ${pathWithQuery(entry)}`],
      ['Status', entry.status === null || entry.status === undefined ? '' : String(entry.status)],
      ['Duration', entry.duration_ms === null || entry.duration_ms === undefined ? '' : `${entry.duration_ms} ms`],
      ['Request id', entry.request_id ?? ''],
      ['Fault rule', entry.fault_id ?? ''],
    ]);
    if (!this.jsonEnabled()) {
      this.log(`\nRequest headers\n${pretty(entry.request_headers)}`);
      this.log(`\nRequest body${truncated('request_body')}\n${pretty(entry.request_body)}`);
      this.log(`\nResponse body${truncated('response_body')}\n${pretty(entry.response_body)}`);
    }
    return entry;
  }
}

/** A JSON body indented; text as it is; nothing as "(none)". */
function pretty(value: unknown): string {
  if (value === undefined || value === null || value === '') return '(none)';
  if (typeof value === 'string') {
    try {
      return JSON.stringify(JSON.parse(value), null, 2);
    } catch {
      return value;
    }
  }
  return JSON.stringify(value, null, 2);
}
