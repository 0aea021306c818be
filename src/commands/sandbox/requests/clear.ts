import { clearJournal } from '../../../lib/api/sandbox.js';
import { BaseCommand } from '../../../lib/base-command.js';

export default class SandboxRequestsClear extends BaseCommand<typeof SandboxRequestsClear> {
  static override summary = "Empty your account's request journal";

  static override description = 'Deletes every recorded request of your account on a payctl server (other accounts keep theirs). Useful before a test run, so that the journal holds only what the test did.';

  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json'];

  async run(): Promise<{ cleared: true }> {
    await clearJournal(this.client());
    this.notice('Request journal cleared.');
    return { cleared: true };
  }
}
