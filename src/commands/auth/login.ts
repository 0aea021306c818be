import { Flags } from '@oclif/core';
import { ApiClient } from '../../lib/api/client.js';
import { verifyCredentials } from '../../lib/api/auth.js';
import { BaseCommand } from '../../lib/base-command.js';
import { DEFAULT_PROFILE, configTokenCache, resolveCredentials, saveProfile } from '../../lib/config.js';

export interface LoginResult {
  profile: string;
  base_url: string;
  client_id: string;
  app_id: string;
}

export default class AuthLogin extends BaseCommand<typeof AuthLogin> {
  static override summary = 'Save API credentials as a profile, after checking them';

  static override description = `Asks the service for an access token with the given client id and secret and, when that works, stores them as a profile (in a file only you can read) and makes it the current one. Values come from the flags, then PAYCTL_BASE_URL / PAYCTL_CLIENT_ID / PAYCTL_CLIENT_SECRET, then what the profile already holds. Anything still missing is asked for on a terminal; in scripts, CI or with --no-input the command fails with exit code 2 and names the flag to pass instead.`;

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --base-url http://127.0.0.1:8080 --client-id AYx1 --client-secret "$SECRET"',
    '<%= config.bin %> <%= command.id %> --profile staging --base-url https://payments.example.test',
  ];

  static override flags = {
    'base-url': Flags.string({ description: 'API base URL, e.g. http://127.0.0.1:8080' }),
    'client-id': Flags.string({ description: 'OAuth client id' }),
    'client-secret': Flags.string({ description: 'OAuth client secret (prefer PAYCTL_CLIENT_SECRET or the prompt)' }),
    profile: Flags.string({ description: `Profile to save (default: $PAYCTL_PROFILE, else "${DEFAULT_PROFILE}")` }),
  };

  async run(): Promise<LoginResult> {
    const profile = this.flags.profile || process.env.PAYCTL_PROFILE || DEFAULT_PROFILE;
    const known = resolveCredentials({ flags: { ...this.flags, profile } });
    const [baseUrl = '', clientId = '', clientSecret = ''] = await this.requireFlagsOrPrompt([
      { flag: 'base-url', env: 'PAYCTL_BASE_URL', value: known.base_url, message: 'API base URL' },
      { flag: 'client-id', env: 'PAYCTL_CLIENT_ID', value: known.client_id, message: 'Client id' },
      { flag: 'client-secret', env: 'PAYCTL_CLIENT_SECRET', value: known.client_secret, message: 'Client secret', secret: true },
    ]);
    const client = new ApiClient({ baseUrl, clientId, clientSecret, tokenCache: configTokenCache() });
    const { app_id } = await verifyCredentials(client);
    saveProfile(profile, { base_url: client.baseUrl, client_id: clientId, client_secret: clientSecret }, { makeCurrent: true });
    const result: LoginResult = { profile, base_url: client.baseUrl, client_id: clientId, app_id };
    this.renderDetail([
      ['Profile', profile],
      ['Base URL', result.base_url],
      ['Client id', clientId],
      ['App id', app_id],
    ]);
    this.notice(`Logged in; profile "${profile}" is now current.`);
    return result;
  }
}
