// How many fault rules each merchant has, on its account row: the token lookup reads it with the
// caller, so a request of a merchant without rules needs no read of the rules themselves.

import type { Migration } from './types.js';

export const accountFaultRulesMigration: Migration = {
  id: 15,
  name: 'account-fault-rules',
  statements: [
    `ALTER TABLE accounts ADD COLUMN fault_rule_count INTEGER NOT NULL DEFAULT 0`,
    `UPDATE accounts SET fault_rule_count = (SELECT COUNT(*) FROM fault_rules WHERE fault_rules.account_id = accounts.id)`,
  ],
};
