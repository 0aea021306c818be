import { readFile } from 'node:fs/promises';
import { Flags } from '@oclif/core';
import { UsageError } from '../../lib/api/errors.js';
import { replaceTemplate, type Template } from '../../lib/api/templates.js';
import { templateIdArg } from '../../lib/args.js';
import { BaseCommand } from '../../lib/base-command.js';
import { requestIdFlag } from '../../lib/flags.js';

export default class TemplatesUpdate extends BaseCommand<typeof TemplatesUpdate> {
  static override summary = 'Replace a whole invoice template with the content of a JSON file';

  static override description = `FULL REPLACEMENT: the file becomes the template. Fields the file leaves out are removed
from the template, not kept (the API has no partial update). Start from \`payctl templates get ID
--json\`, edit, and send it back. The file must be a JSON object with a "name"; nothing is sent
when it is not. Read-only fields in the file (id, links, standard_template) are ignored.`;

  static override examples = [
    '<%= config.bin %> templates get TEMP-4NH72LU5K4BVW6R2X --json > template.json && <%= config.bin %> <%= command.id %> TEMP-4NH72LU5K4BVW6R2X --file template.json',
    '<%= config.bin %> <%= command.id %> TEMP-4NH72LU5K4BVW6R2X --file template.json --json',
  ];

  static override args = { id: templateIdArg() };

  static override flags = {
    file: Flags.string({ char: 'f', description: 'The complete template as JSON', required: true }),
    'request-id': requestIdFlag(),
  };

  async run(): Promise<Template> {
    const f = this.flags;
    let text: string;
    try {
      text = await readFile(f.file, 'utf8');
    } catch {
      throw new UsageError(`cannot read ${f.file}`);
    }
    let body: unknown;
    try {
      body = JSON.parse(text) as unknown;
    } catch (error) {
      throw new UsageError(`${f.file} is not valid JSON (${(error as Error).message}); nothing was sent`);
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new UsageError(`${f.file} must hold a JSON object (a whole template); nothing was sent`);
    }
    if (typeof (body as { name?: unknown }).name !== 'string') {
      throw new UsageError(`${f.file} has no "name": a replacement must be the whole template; nothing was sent`);
    }
    const template = await replaceTemplate(this.client(), this.args.id, body, this.requestOptions());
    this.renderDetail([
      ['ID', template.id],
      ['Name', template.name],
      ['Replaced', 'yes'],
    ]);
    return template;
  }
}
