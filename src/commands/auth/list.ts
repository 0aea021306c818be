import { BaseCommand } from '../../lib/base-command.js';
import { currentProfileName, isUsable, listProfiles } from '../../lib/config.js';

export interface ProfileEntry {
  name: string;
  current: boolean;
  base_url: string | null;
  client_id: string | null;
  /** Holds a secret: commands can use it without `auth login`. */
  logged_in: boolean;
}

export interface ProfileList {
  current: string;
  profiles: ProfileEntry[];
}

export default class AuthList extends BaseCommand<typeof AuthList> {
  static override summary = 'List the stored profiles and which one is current';

  static override description = `One line per profile: its name, whether it is the current one (the profile commands use without --profile), its base URL, client id and whether it holds a secret. PAYCTL_PROFILE, when set, names the current profile instead of the stored choice. Switch with \`payctl auth switch NAME\`.`;

  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json'];

  async run(): Promise<ProfileList> {
    const current = currentProfileName();
    const profiles = Object.entries(listProfiles())
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, profile]) => ({
        name,
        current: name === current,
        base_url: profile.base_url ?? null,
        client_id: profile.client_id ?? null,
        logged_in: isUsable(profile),
      }));
    this.renderTable(profiles, [
      { header: 'Current', value: (entry) => (entry.current ? '*' : '') },
      { header: 'Profile', value: (entry) => entry.name, id: true },
      { header: 'Base URL', value: (entry) => entry.base_url ?? '' },
      // An app's client id runs to 80 characters and is never typed from this table (--json has it whole),
      // so on a narrow terminal it is the column that gives way.
      { header: 'Client id', value: (entry) => entry.client_id ?? '', id: false },
      { header: 'Logged in', value: (entry) => (entry.logged_in ? 'yes' : 'no') },
    ]);
    const loggedOut = profiles.filter((entry) => !entry.logged_in).map((entry) => entry.name);
    if (loggedOut.length > 0) this.notice(`Without a secret: ${loggedOut.join(', ')} (payctl auth login --profile NAME to use one again).`);
    if (profiles.length === 0) this.notice('No profiles yet: run `payctl auth login` (or `payctl serve`, which writes "local").');
    else if (!profiles.some((entry) => entry.current)) this.notice(`The current profile "${current}" is not stored: run \`payctl auth switch NAME\` or \`payctl auth login\`.`);
    if (process.env.PAYCTL_PROFILE) this.notice(`PAYCTL_PROFILE=${process.env.PAYCTL_PROFILE} chooses the current profile while it is set.`);
    return { current, profiles };
  }
}
