import { deleteTemplate } from '../../lib/api/templates.js';
import { templateIdArg } from '../../lib/args.js';
import { BaseCommand, type Deleted } from '../../lib/base-command.js';
import { requestIdFlag, yesFlag } from '../../lib/flags.js';

export default class TemplatesDelete extends BaseCommand<typeof TemplatesDelete> {
  static override summary = 'Delete an invoice template';

  static override description = `Deletes one of your templates (the system templates cannot be deleted). Asks first on a
terminal; scripts pass --yes. The API answers 204 with no body, so --json prints {"id": ..., "deleted": true}.`;

  static override examples = ['<%= config.bin %> <%= command.id %> TEMP-4NH72LU5K4BVW6R2X', '<%= config.bin %> <%= command.id %> TEMP-4NH72LU5K4BVW6R2X --yes --json'];

  static override args = { id: templateIdArg() };

  static override flags = { yes: yesFlag(), 'request-id': requestIdFlag() };

  async run(): Promise<Deleted> {
    return this.deleteAfterConfirm('template', this.args.id, deleteTemplate);
  }
}
