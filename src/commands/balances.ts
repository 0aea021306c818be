import { Flags } from '@oclif/core';
import { getBalances, type BalanceQuery } from '../lib/api/reporting.js';
import { BaseCommand } from '../lib/base-command.js';
import { currencyFlag } from '../lib/flags.js';
import { formatDate, formatMoney } from '../lib/render/format.js';
import { asOfTime } from '../lib/reporting.js';

export default class Balances extends BaseCommand<typeof Balances> {
  static override summary = 'Show your balance per currency: total, available and withheld';

  static override description = `Now, or as it was at --as-of: a date (YYYY-MM-DD) means the end of that UTC day on the merchant's clock (the closing balance, every movement of the day included), a date-time (RFC 3339) that instant (movements at it included). --json prints the API's answer exactly.`;

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --as-of 2026-10-31 --currency USD',
    '<%= config.bin %> <%= command.id %> --as-of 2026-11-15T12:00:00Z --json',
  ];

  static override flags = {
    'as-of': Flags.string({ description: 'The balance at the end of this day (YYYY-MM-DD) or at this instant (RFC 3339)', helpValue: 'DATE' }),
    currency: currencyFlag({ description: 'Only this currency' }),
  };

  async run(): Promise<unknown> {
    const query: BalanceQuery = {};
    if (this.flags['as-of']) query.as_of_time = asOfTime(this.flags['as-of']);
    if (this.flags.currency) query.currency_code = this.flags.currency;
    const { balances, raw } = await getBalances(this.client(), query);
    this.renderTable(balances.balances, [
      { header: 'Currency', value: (balance) => balance.currency },
      { header: 'Total', value: (balance) => formatMoney(balance.total_balance) },
      { header: 'Available', value: (balance) => formatMoney(balance.available_balance) },
      { header: 'Withheld', value: (balance) => formatMoney(balance.withheld_balance) },
      { header: 'Primary', value: (balance) => (balance.primary ? 'yes' : '') },
    ]);
    if (balances.as_of_time) this.notice(`As of ${formatDate(balances.as_of_time)}`);
    if (balances.balances.length === 0) this.notice('No balance in any currency yet.');
    return raw;
  }
}
