import { Flags } from '@oclif/core';
import { grantConsent, type Consent } from '../../lib/api/sandbox.js';
import { BaseCommand } from '../../lib/base-command.js';
import { adminKeyFlag, requestIdFlag } from '../../lib/flags.js';
import { formatDate } from '../../lib/render/format.js';

export default class SandboxConsent extends BaseCommand<typeof SandboxConsent> {
  static override summary = 'Let a platform act on behalf of a merchant';

  static override description = `Records a merchant's consent for a platform (identified by its client id) to call the API for it with Service-Auth-Assertion. Needs the server's admin key.`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> --platform-client-id AYplatform --payer-id 7QX2MERCHANT',
    'PAYCTL_ADMIN_KEY=... <%= config.bin %> <%= command.id %> --platform-client-id AYplatform --payer-id 7QX2MERCHANT --json',
  ];

  static override flags = {
    'platform-client-id': Flags.string({ description: 'Client id of the platform', required: true }),
    'payer-id': Flags.string({ description: 'Payer id of the merchant giving consent', required: true }),
    'admin-key': adminKeyFlag(),
    'request-id': requestIdFlag(),
  };

  async run(): Promise<Consent> {
    const adminKey = await this.requireAdminKey();
    const consent = await grantConsent(this.client({ credentials: false }), {
      adminKey,
      platformClientId: this.flags['platform-client-id'],
      payerId: this.flags['payer-id'],
      ...this.requestOptions(),
    });
    this.renderDetail([
      ['Platform', consent.platform_client_id],
      ['Merchant', consent.payer_id],
      ['Granted', formatDate(consent.create_time)],
    ]);
    return consent;
  }
}
