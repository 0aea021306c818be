import { Args, Flags } from '@oclif/core';
import { UsageError } from '../../../lib/api/errors.js';
import { removeFaultRules } from '../../../lib/api/sandbox.js';
import { BaseCommand } from '../../../lib/base-command.js';

export default class SandboxFaultsRm extends BaseCommand<typeof SandboxFaultsRm> {
  static override summary = 'Remove a fault rule, or all of them';

  static override description = 'Removes one fault rule of your account by id, or every one with --all. Calls that matched them behave normally again at once.';

  static override examples = ['<%= config.bin %> <%= command.id %> FLT-3J5K8M2P', '<%= config.bin %> <%= command.id %> --all'];

  static override args = { id: Args.string({ description: 'Fault rule id', required: false }) };

  static override flags = { all: Flags.boolean({ description: 'Remove every fault rule of your account' }) };

  async run(): Promise<{ id: string; deleted: true } | { all: true; deleted: true }> {
    const { id } = this.args;
    if (id !== undefined && this.flags.all) throw new UsageError('give a rule id or --all, not both');
    if (id === undefined && !this.flags.all) throw new UsageError('missing ID: give a rule id (`payctl sandbox faults list`) or --all');
    await removeFaultRules(this.client(), id);
    if (id !== undefined) return this.reportDeleted(id);
    this.notice('Every fault rule removed.');
    return { all: true, deleted: true };
  }
}
