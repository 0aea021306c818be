import { BaseCommand } from '../../lib/base-command.js';
import { logoutProfile } from '../../lib/config.js';

export interface LogoutResult {
  profile: string;
  logged_out: boolean;
  /** The current profile afterwards; null when no profile is left with credentials. */
  current: string | null;
}

export default class AuthLogout extends BaseCommand<typeof AuthLogout> {
  static override summary = "Forget a profile's client secret and cached token";

  static override description = `Removes the stored client secret and any cached access token of the profile. The base URL and client id stay, so \`payctl auth login\` only asks for the secret again. Logging out of the current profile makes another profile that holds credentials current (default first, then local, then by name) and says which; with none left, nothing is current until the next login.`;

  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --profile staging'];

  async run(): Promise<LogoutResult> {
    const { profile } = this.credentials();
    const outcome = logoutProfile(profile);
    this.notice(outcome.removed ? `Logged out of profile "${profile}".` : `Profile "${profile}" held no secret; nothing to forget.`);
    if (outcome.wasCurrent) {
      this.notice(
        outcome.current
          ? `Profile "${outcome.current}" is now current (payctl auth switch NAME to choose another).`
          : 'No other profile holds credentials: run `payctl auth login` (or `payctl serve`) before other commands.',
      );
    }
    return { profile, logged_out: outcome.removed, current: outcome.current ?? null };
  }
}
