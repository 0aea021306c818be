import { BaseCommand } from '../../lib/base-command.js';
import { forgetSecret } from '../../lib/config.js';

export interface LogoutResult {
  profile: string;
  logged_out: boolean;
}

export default class AuthLogout extends BaseCommand<typeof AuthLogout> {
  static override summary = "Forget a profile's client secret and cached token";

  static override description = `Removes the stored client secret and any cached access token of the profile. The base URL and client id stay, so \`payctl auth login\` only asks for the secret again.`;

  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --profile staging'];

  async run(): Promise<LogoutResult> {
    const { profile } = this.credentials();
    const { removed } = forgetSecret(profile);
    this.notice(removed ? `Logged out of profile "${profile}".` : `Profile "${profile}" held no secret; nothing to do.`);
    return { profile, logged_out: removed };
  }
}
