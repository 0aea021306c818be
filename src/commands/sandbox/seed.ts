import { Args } from '@oclif/core';
import { BaseCommand } from '../../lib/base-command.js';
import { adminKeyFlag } from '../../lib/flags.js';
import { loadScenario } from '../../lib/scenario.js';
import { runScenario, type StepResult } from '../../lib/scenario-runner.js';
import { keyIdOf } from '../../lib/scenario-summary.js';

export default class SandboxSeed extends BaseCommand<typeof SandboxSeed> {
  static override summary = 'Put a payctl server into a known state from a scenario file (YAML or JSON)';

  static override description = `Runs the named steps of a scenario file in order: accounts, consents, balance top-ups, orders (created, approved, authorized, captured), captures, refunds, invoices (draft, sent, paid), disputes taken to a stage, payouts, webhooks, fault rules and clock moves. A step refers to an earlier step's result with \${step.field.path}, e.g. \${shop_order.capture_id}.

Running the same file again makes nothing twice: each call carries a request id made from the file (its "name:", else its path) and the step, so the server answers with what it did the first time. The file is checked before anything runs; a step that fails is named with its line, and nothing after it runs. --json prints every step's result. See docs/testing-toolkit.md for every kind of step.`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> examples/shop.yaml',
    '<%= config.bin %> <%= command.id %> examples/disputes.yaml --json | jq ".steps[].result.status"',
    'PAYCTL_ADMIN_KEY=... <%= config.bin %> <%= command.id %> scenario.json',
  ];

  static override args = { file: Args.string({ description: 'Scenario file (.yaml, .yml or .json)', required: true }) };

  static override flags = {
    'admin-key': adminKeyFlag('for account and consent steps'),
  };

  async run(): Promise<{ scenario: string; file: string; steps: StepResult[] }> {
    const scenario = await loadScenario(this.args.file);
    const json = this.jsonEnabled();
    const steps = await runScenario(scenario, {
      client: this.client(),
      adminKey: this.flags['admin-key'],
      onStep: (step) => {
        if (!json) this.notice(`ok  ${step.step} (${step.kind})  ${keyIdOf(step)}`);
      },
    });
    this.renderTable(steps, [
      { header: 'Step', value: (step) => step.step },
      { header: 'Kind', value: (step) => step.kind },
      { header: 'Line', value: (step) => String(step.line) },
      { header: 'ID', value: (step) => keyIdOf(step) },
      { header: 'Status', value: (step) => statusOf(step.result), status: true },
    ]);
    return { scenario: scenario.name ?? scenario.file, file: scenario.file, steps };
  }
}

function statusOf(result: unknown): string {
  const status = (result as { status?: unknown; batch_header?: { batch_status?: unknown } } | null)?.status ?? (result as { batch_header?: { batch_status?: unknown } } | null)?.batch_header?.batch_status;
  return typeof status === 'string' ? status : '';
}
