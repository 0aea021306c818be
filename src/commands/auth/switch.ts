import { Args } from '@oclif/core';
import { BaseCommand } from '../../lib/base-command.js';
import { getProfile, isUsable, switchProfile } from '../../lib/config.js';

export interface SwitchResult {
  profile: string;
  previous: string;
}

export default class AuthSwitch extends BaseCommand<typeof AuthSwitch> {
  static override summary = 'Make another stored profile the current one';

  static override description = `The current profile is the one commands use without --profile (or PAYCTL_PROFILE, which wins while it is set). \`payctl auth list\` shows the stored profiles.`;

  static override examples = ['<%= config.bin %> <%= command.id %> local', '<%= config.bin %> <%= command.id %> seller --json'];

  static override args = { name: Args.string({ description: 'Profile to make current', required: true }) };

  async run(): Promise<SwitchResult> {
    const { name } = this.args;
    const { previous } = switchProfile(name);
    this.notice(previous === name ? `Profile "${name}" was already current.` : `Switched from profile "${previous}" to "${name}".`);
    if (!isUsable(getProfile(name))) this.notice(`Profile "${name}" holds no secret: run \`payctl auth login --profile ${name}\` before using it.`);
    const env = process.env.PAYCTL_PROFILE;
    if (env && env !== name) this.notice(`PAYCTL_PROFILE=${env} is set and still wins in this shell: unset it to use "${name}".`);
    return { profile: name, previous };
  }
}
