import { listFaultRules, type FaultRuleList } from '../../../lib/api/sandbox.js';
import { BaseCommand } from '../../../lib/base-command.js';
import { describeRespond, timesText } from '../../../lib/scenario-faults.js';

export default class SandboxFaultsList extends BaseCommand<typeof SandboxFaultsList> {
  static override summary = "List your account's fault rules, with how often each matched and fired";

  static override description = 'One line a rule: id, method and path, how many calls it lets through first, how many it faults, what it answers, and how many calls matched and were faulted so far.';

  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json'];

  async run(): Promise<FaultRuleList> {
    const list = await listFaultRules(this.client());
    this.renderTable(list.items, [
      { header: 'ID', value: (rule) => rule.id },
      { header: 'Method', value: (rule) => rule.method },
      { header: 'Path', value: (rule) => rule.path },
      { header: 'After', value: (rule) => String(rule.after ?? 0) },
      { header: 'Times', value: (rule) => timesText(rule) },
      { header: 'Answer', value: (rule) => describeRespond(rule.respond) },
      { header: 'Matched', value: (rule) => String(rule.matched ?? 0) },
      { header: 'Fired', value: (rule) => String(rule.fired ?? 0) },
    ]);
    if (list.items.length === 0) this.notice('No fault rules.');
    return list;
  }
}
