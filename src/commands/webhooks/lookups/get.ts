import { getWebhookLookup } from '../../../lib/api/webhook-lookups.js';
import { showCommand } from '../../../lib/show-command.js';

export default showCommand({
  summary: 'Show a webhook lookup',
  description: 'Shows one webhook lookup of the account: its id and the client id of its app.',
  exampleId: '0EH40505U7160970P',
  idDescription: 'Webhook lookup id',
  fetch: getWebhookLookup,
  rows: (lookup) => [
    ['ID', lookup.id],
    ['Client ID', lookup.client_id],
  ],
});
