import { Flags } from '@oclif/core';
import { runAudit, type AuditReport } from '../../lib/api/audit.js';
import { BaseCommand } from '../../lib/base-command.js';
import { adminKeyFlag } from '../../lib/flags.js';

export default class SandboxAudit extends BaseCommand<typeof SandboxAudit> {
  static override summary = "Check the local server's ledger: every invariant, every account with --all";

  static override description = `Asks a payctl server to check its books: balances equal the sum of their movements, captures stay within their authorization's limit and equal what the authorization records, refunds stay within their capture, fee breakdowns add up. With --all (admin key) it checks every account and also runs the database's own checks (SQLite's integrity and foreign-key checks; on PostgreSQL, constraints and indexes left invalid).

Exits 0 when nothing is wrong and 1 when a check finds violations (listed, up to 100 per check).`;

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    'PAYCTL_ADMIN_KEY=... <%= config.bin %> <%= command.id %> --all --json',
  ];

  static override flags = {
    all: Flags.boolean({ description: 'Audit every account (needs the admin key)' }),
    'admin-key': adminKeyFlag('with --all'),
  };

  async run(): Promise<AuditReport> {
    const adminKey = this.flags.all
      ? await this.requireAdminKey()
      : undefined;
    const report = await runAudit(this.client({ credentials: !this.flags.all }), adminKey ? { adminKey } : {});
    if (!this.flags.json) {
      this.renderTable(report.checks, [
        { header: 'Check', value: (check) => check.name },
        { header: 'Result', value: (check) => (check.violations.length === 0 ? 'OK' : 'FAILED'), status: true },
        { header: 'Violations', value: (check) => String(check.violations.length) },
      ]);
      for (const check of report.checks.filter((item) => item.violations.length > 0)) {
        this.notice(`${check.name}: ${check.description}`);
        for (const violation of check.violations) this.notice(`  ${JSON.stringify(violation)}`);
      }
      if (report.skipped.length > 0) this.notice(`skipped (domain not on this server): ${report.skipped.join(', ')}`);
    }
    if (!report.ok) process.exitCode = 1;
    return report;
  }
}
