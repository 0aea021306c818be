import { eventResourceId, getEvent } from '../../../lib/api/webhooks.js';
import { formatDate } from '../../../lib/render/format.js';
import { showCommand } from '../../../lib/show-command.js';

export default showCommand({
  summary: 'Show one event',
  description: 'Shows an event as webhooks receive it; --json prints the exact envelope.',
  exampleId: 'WH-58D329510W468432D',
  idDescription: 'Event id (WH-...)',
  fetch: getEvent,
  rows: (event) => [
    ['ID', event.id],
    ['Time', formatDate(event.create_time)],
    ['Type', event.event_type],
    ['Resource type', event.resource_type],
    ['Resource', eventResourceId(event)],
    ['Summary', event.summary],
  ],
});
