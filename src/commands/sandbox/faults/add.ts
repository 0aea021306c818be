import { Flags } from '@oclif/core';
import { UsageError } from '../../../lib/api/errors.js';
import { addFaultRule, type FaultResponse, type FaultRule } from '../../../lib/api/sandbox.js';
import { BaseCommand } from '../../../lib/base-command.js';
import { requestIdFlag } from '../../../lib/flags.js';
import { faultRows, parseDelayMs } from '../../../lib/scenario-faults.js';

export default class SandboxFaultsAdd extends BaseCommand<typeof SandboxFaultsAdd> {
  static override summary = 'Make matching API calls of your account fail, slow down or drop (negative testing)';

  static override description = `Adds a fault rule on a payctl server: calls of your account with this method and path (* stands for one path segment) are let through --after times, then the next --times ones get the fault instead of the real answer. A faulted call changes nothing; a delayed one runs normally after the delay. One of:
  --status 500              an error answer in the service's error shape
  --status 429 --retry-after 5   too many requests, with a Retry-After header
  --error NAME:ISSUE        an error the API defines for the route, e.g. UNPROCESSABLE_ENTITY:INSTRUMENT_DECLINED
  --delay 3s                the real answer, late (ms, s or m)
  --drop                    the connection closes without an answer
Rules show in the request journal (Fault column); \`payctl sandbox faults list\` shows how often each matched and fired.`;

  static override examples = [
    "<%= config.bin %> <%= command.id %> --method POST --path '/v2/payments/authorizations/*/capture' --after 2 --times 1 --status 500",
    "<%= config.bin %> <%= command.id %> --method POST --path '/v2/checkout/orders/*/capture' --error UNPROCESSABLE_ENTITY:INSTRUMENT_DECLINED",
    "<%= config.bin %> <%= command.id %> --method GET --path '/v2/checkout/orders/*' --status 429 --retry-after 5 --times 3",
    "<%= config.bin %> <%= command.id %> --method POST --path '/v2/invoicing/invoices' --delay 3s --json",
  ];

  static override flags = {
    method: Flags.string({ description: 'HTTP method to match (GET, POST, PATCH, DELETE, PUT)', required: true }),
    path: Flags.string({ description: 'Path to match; * stands for one segment', required: true }),
    after: Flags.integer({ description: 'Let this many matching calls through first', min: 0, default: 0 }),
    times: Flags.integer({ description: 'Fault this many matching calls, then stop (default: every one)', min: 1 }),
    status: Flags.integer({ description: 'Answer with this HTTP status (400 to 599)', min: 400, max: 599, exclusive: ['error', 'delay', 'drop'] }),
    'retry-after': Flags.integer({ description: 'With --status 429: seconds in the Retry-After header', min: 0, dependsOn: ['status'] }),
    error: Flags.string({ description: 'Answer with this error of the route: NAME:ISSUE', exclusive: ['status', 'delay', 'drop'] }),
    delay: Flags.string({ description: 'Answer normally after this long (500ms, 3s, 1m)', exclusive: ['status', 'error', 'drop'] }),
    drop: Flags.boolean({ description: 'Close the connection without answering', exclusive: ['status', 'error', 'delay'] }),
    'request-id': requestIdFlag(),
  };

  async run(): Promise<FaultRule> {
    const rule = await addFaultRule(
      this.client(),
      {
        method: this.flags.method.toUpperCase(),
        path: this.flags.path,
        after: this.flags.after,
        ...(this.flags.times === undefined ? {} : { times: this.flags.times }),
        respond: this.respond(),
      },
      this.requestOptions(),
    );
    this.renderDetail(faultRows(rule));
    return rule;
  }

  private respond(): FaultResponse {
    const { status, error, delay, drop } = this.flags;
    const retryAfter = this.flags['retry-after'];
    if (retryAfter !== undefined && status !== 429) throw new UsageError('--retry-after goes with --status 429');
    if (status !== undefined) return retryAfter === undefined ? { status } : { status, retry_after: retryAfter };
    if (error !== undefined) {
      const match = /^([A-Z_]+):([A-Z0-9_]+)$/.exec(error.trim());
      if (!match) throw new UsageError(`--error "${error}": give NAME:ISSUE, e.g. UNPROCESSABLE_ENTITY:INSTRUMENT_DECLINED`);
      return { name: match[1] as string, issue: match[2] as string };
    }
    if (delay !== undefined) {
      try {
        return { delay_ms: parseDelayMs(delay) };
      } catch (problem) {
        throw new UsageError(`--delay: ${(problem as Error).message}`);
      }
    }
    if (drop) return { drop: true };
    throw new UsageError('say what the matching calls get: --status, --error NAME:ISSUE, --delay or --drop');
  }
}
