// Invoices keep their body's rendering for reads beside the body (invoicing/view-template.ts).
// Rows written before this migration have none and are rendered from the body until their next write.

import type { Migration } from './types.js';

export const invoiceViewsMigration: Migration = {
  id: 8,
  name: 'invoice-views',
  statements: [`ALTER TABLE invoices ADD COLUMN view_template TEXT`],
};
