import { readFile } from 'node:fs/promises';
import { Flags } from '@oclif/core';
import { UsageError } from '../../lib/api/errors.js';
import { createTemplate, type Template } from '../../lib/api/templates.js';
import { BaseCommand } from '../../lib/base-command.js';
import { currencyFlag, requestIdFlag } from '../../lib/flags.js';

const TERMS = ['DUE_ON_RECEIPT', 'NET_10', 'NET_15', 'NET_30', 'NET_45', 'NET_60', 'NET_90', 'NO_DUE_DATE'];

export default class TemplatesCreate extends BaseCommand<typeof TemplatesCreate> {
  static override summary = 'Create an invoice template from a JSON file or from flags';

  static override description = `Creates a template. Give the whole template as JSON with --file (the API's template
object), or the common parts with flags: --name, --currency, --terms, --unit, --note, --default.
Names are unique among your templates.`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> --name "Consulting" --currency EUR --terms NET_30 --unit HOURS',
    '<%= config.bin %> <%= command.id %> --file template.json --json',
  ];

  static override flags = {
    file: Flags.string({ char: 'f', description: 'The template as JSON', exclusive: ['name'] }),
    name: Flags.string({ description: 'Template name (1 to 500 characters, unique)' }),
    currency: currencyFlag(),
    terms: Flags.string({ description: 'Payment terms', options: TERMS }),
    unit: Flags.string({ description: 'Unit of measure', options: ['QUANTITY', 'HOURS', 'AMOUNT'] }),
    note: Flags.string({ description: 'Note to recipients' }),
    default: Flags.boolean({ description: 'Make it the default template' }),
    'request-id': requestIdFlag(),
  };

  async run(): Promise<Template> {
    const f = this.flags;
    let body: unknown;
    if (f.file) {
      try {
        body = JSON.parse(await readFile(f.file, 'utf8')) as unknown;
      } catch (error) {
        throw new UsageError(`${f.file} could not be read as JSON: ${(error as Error).message}`);
      }
    } else {
      if (!f.name) throw new UsageError('pass --name (or the whole template with --file)');
      const detail: Record<string, unknown> = { currency_code: f.currency ?? 'USD' };
      if (f.terms) detail.payment_term = { term_type: f.terms };
      if (f.note) detail.note = f.note;
      body = { name: f.name, default_template: f.default, template_info: { detail }, ...(f.unit ? { unit_of_measure: f.unit } : {}) };
    }
    const template = await createTemplate(this.client(), body, this.requestOptions());
    this.renderDetail([
      ['ID', template.id],
      ['Name', template.name],
      ['Default', template.default_template ? 'yes' : 'no'],
    ]);
    return template;
  }
}
