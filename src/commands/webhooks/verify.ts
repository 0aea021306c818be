import { readFile } from 'node:fs/promises';
import { Flags } from '@oclif/core';
import { UsageError } from '../../lib/api/errors.js';
import { parseHeadersText, signatureHeadersFrom, verifyLocally, verifyWebhookSignature, type Verification } from '../../lib/api/webhooks.js';
import { BaseCommand } from '../../lib/base-command.js';

export default class WebhooksVerify extends BaseCommand<typeof WebhooksVerify> {
  static override summary = "Check a delivery's signature";

  static override description = `Checks that a delivery you received was signed by the service for your webhook. --headers is a file with the delivery's headers (a JSON object, or "Name: value" lines); PAYPAL-* and SERVICE-* names are both read. --body is a file with the body exactly as received (bytes matter: the signature covers its CRC-32).

By default asks the service (POST /v1/notifications/verify-webhook-signature). With --local it fetches the certificate from the cert URL and checks the signature itself, with no credentials.

Prints SUCCESS or FAILURE; exits 0 on SUCCESS and 1 on FAILURE.`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> --webhook-id 5GP028458E2496506 --headers headers.json --body body.json',
    '<%= config.bin %> <%= command.id %> --webhook-id 5GP028458E2496506 --headers headers.txt --body body.json --local --json',
  ];

  static override flags = {
    'webhook-id': Flags.string({ description: 'Id of the webhook the delivery was for (WEBHOOK_ID for simulated events sent to a URL)', required: true }),
    headers: Flags.string({ description: 'File with the delivery headers', required: true }),
    body: Flags.string({ description: 'File with the delivery body, byte for byte', required: true }),
    local: Flags.boolean({ description: 'Verify with the certificate instead of asking the service' }),
  };

  async run(): Promise<Verification> {
    const [headersText, body] = await Promise.all([readFile(this.flags.headers, 'utf8'), readFile(this.flags.body)]).catch((error: Error) => {
      throw new UsageError(`cannot read the file: ${error.message}`);
    });
    let signature;
    try {
      signature = signatureHeadersFrom(parseHeadersText(headersText));
    } catch (error) {
      throw new UsageError(`--headers: ${(error as Error).message}`);
    }
    if (!signature) {
      throw new UsageError(
        '--headers: need PAYPAL-AUTH-ALGO, PAYPAL-CERT-URL, PAYPAL-TRANSMISSION-ID, PAYPAL-TRANSMISSION-SIG and PAYPAL-TRANSMISSION-TIME',
      );
    }
    const webhookId = this.flags['webhook-id'];
    let result: Verification;
    if (this.flags.local) {
      result = await verifyLocally(signature, webhookId, body);
    } else {
      let event: unknown;
      try {
        event = JSON.parse(body.toString('utf8'));
      } catch {
        throw new UsageError('--body: not JSON; the service verifies webhook events (use --local for raw bytes)');
      }
      result = await verifyWebhookSignature(this.client(), { ...signature, webhook_id: webhookId, webhook_event: event });
    }
    this.renderDetail([['Verification', result.verification_status, 'status']]);
    if (result.verification_status !== 'SUCCESS') process.exitCode = 1;
    return result;
  }
}
