import { Args } from '@oclif/core';
import { UsageError } from '../../lib/api/errors.js';
import { advanceClock, getClock, type SandboxClock } from '../../lib/api/sandbox.js';
import { BaseCommand } from '../../lib/base-command.js';
import { formatDuration, parseDuration } from '../../lib/duration.js';
import { requestIdFlag } from '../../lib/flags.js';
import { formatDate } from '../../lib/render/format.js';

export default class SandboxClockCommand extends BaseCommand<typeof SandboxClockCommand> {
  static override summary = "Show or move your sandbox account's clock";

  static override description = `Each account on a payctl server has its own clock, so that expiries, due dates and scheduled work can be tested without waiting. Without arguments, shows the account's current time and how far it is ahead of real time; \`advance DURATION\` moves it forward (units d, h, m, s).`;

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> advance 30d',
    '<%= config.bin %> <%= command.id %> advance 1d12h --json',
  ];

  static override args = {
    action: Args.string({ description: 'What to do with the clock', options: ['advance'], required: false }),
    duration: Args.string({ description: 'How far to move it: 30d, 12h, 90m, 45s, 1d12h', required: false }),
  };

  static override flags = {
    'request-id': requestIdFlag(),
  };

  async run(): Promise<SandboxClock> {
    const clock = this.args.action === 'advance' ? await this.advance() : await getClock(this.client());
    this.renderDetail([
      ['Payer id', clock.payer_id],
      ['Now', formatDate(clock.now)],
      ['Offset', `${formatDuration(clock.offset_seconds)} (${clock.offset_seconds} s)`],
    ]);
    return clock;
  }

  private async advance(): Promise<SandboxClock> {
    if (!this.args.duration) throw new UsageError('missing DURATION: e.g. `payctl sandbox clock advance 30d`');
    let seconds: number;
    try {
      seconds = parseDuration(this.args.duration);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    if (seconds <= 0) throw new UsageError('the duration must be greater than zero');
    return advanceClock(this.client(), { seconds, ...this.requestOptions() });
  }
}
