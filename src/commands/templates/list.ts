import { listTemplates, type TemplateList } from '../../lib/api/templates.js';
import { BaseCommand } from '../../lib/base-command.js';
import { pageFlag, pageSizeFlag } from '../../lib/flags.js';

export default class TemplatesList extends BaseCommand<typeof TemplatesList> {
  static override summary = 'List invoice templates';

  static override description = `Lists your invoice templates, the three system templates (Quantity, Hours, Amount) first.
Shows 100 per page unless --page-size says otherwise. --json prints the API's answer as is.`;

  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json | jq -r ".templates[].name"'];

  static override flags = {
    page: pageFlag({ max: 1000 }),
    'page-size': pageSizeFlag({ max: 100, items: 'Templates' }),
  };

  async run(): Promise<TemplateList> {
    const list = await listTemplates(this.client(), { page: this.flags.page ?? 1, pageSize: this.flags['page-size'] ?? 100 });
    this.renderTable(list.templates, [
      { header: 'ID', value: (template) => template.id },
      { header: 'Name', value: (template) => template.name },
      { header: 'Unit', value: (template) => template.unit_of_measure },
      { header: 'Default', value: (template) => (template.default_template ? 'yes' : '') },
      { header: 'System', value: (template) => (template.standard_template ? 'yes' : '') },
    ]);
    return list;
  }
}
