import { getTemplate, type Template } from '../../lib/api/templates.js';
import { templateIdArg } from '../../lib/args.js';
import { BaseCommand } from '../../lib/base-command.js';

export default class TemplatesGet extends BaseCommand<typeof TemplatesGet> {
  static override summary = 'Show an invoice template';

  static override description = `Shows a template's name, flags and a summary of its content. --json prints the whole
template, which is also what \`payctl templates update --file\` takes back.`;

  static override examples = ['<%= config.bin %> <%= command.id %> TEMP-4NH72LU5K4BVW6R2X', '<%= config.bin %> <%= command.id %> TEMP-4NH72LU5K4BVW6R2X --json > template.json'];

  static override args = { id: templateIdArg() };

  async run(): Promise<Template> {
    const template = await getTemplate(this.client(), this.args.id);
    const info = template.template_info ?? {};
    const detail = (info.detail ?? {}) as { currency_code?: string; payment_term?: { term_type?: string } };
    this.renderDetail([
      ['ID', template.id],
      ['Name', template.name],
      ['Unit', template.unit_of_measure],
      ['Default', template.default_template ? 'yes' : 'no'],
      ['System', template.standard_template ? 'yes' : 'no'],
      ['Currency', detail.currency_code],
      ['Terms', detail.payment_term?.term_type],
      ['Items', String(Array.isArray(info.items) ? info.items.length : 0)],
    ]);
    return template;
  }
}
