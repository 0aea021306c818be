import { getWebhook } from '../../lib/api/webhooks.js';
import { showCommand } from '../../lib/show-command.js';

export default showCommand({
  summary: 'Show a webhook',
  description: 'Shows one webhook: its receiver address and the event types it is subscribed to.',
  exampleId: '5GP028458E2496506',
  idDescription: 'Webhook id',
  fetch: getWebhook,
  rows: (webhook) => [
    ['ID', webhook.id],
    ['URL', webhook.url],
    ['Events', webhook.event_types.map((type) => type.name).join(', ')],
  ],
});
