import { issueAccessToken } from '../../lib/api/auth.js';
import type { TokenResponse } from '../../lib/api/types.js';
import { BaseCommand } from '../../lib/base-command.js';

export default class AuthToken extends BaseCommand<typeof AuthToken> {
  static override summary = 'Print a fresh access token';

  static override description = `Gets a new OAuth access token for the resolved credentials and prints only the token, so that it can be used with other HTTP tools. With --json, prints the whole token response.`;

  static override examples = [
    'curl -H "Authorization: Bearer $(<%= config.bin %> <%= command.id %>)" http://127.0.0.1:8080/_payctl/clock',
    '<%= config.bin %> <%= command.id %> --json',
  ];

  async run(): Promise<TokenResponse> {
    const token = await issueAccessToken(this.client());
    this.log(token.access_token);
    return token;
  }
}
