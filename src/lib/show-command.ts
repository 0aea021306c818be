// A "show one resource by its id" command is data: what to fetch and which rows to print. This
// builds such a command, so each one is a declaration (see commands/webhooks/get.ts).

import { Args } from '@oclif/core';
import type { ApiClient } from './api/client.js';
import { BaseCommand } from './base-command.js';
import type { DetailRow } from './render/format.js';

export interface ShowCommandSpec<Resource> {
  summary: string;
  description: string;
  /** An id for the examples, which show it plain and with --json. */
  exampleId: string;
  /** The id argument's description, e.g. "Webhook id". */
  idDescription: string;
  fetch: (client: ApiClient, id: string) => Promise<Resource>;
  /** The label/value lines on a terminal; --json prints the resource as the API answered it. */
  rows: (resource: Resource) => DetailRow[];
}

export function showCommand<Resource>(spec: ShowCommandSpec<Resource>) {
  class ShowCommand extends BaseCommand<typeof ShowCommand> {
    static override summary = spec.summary;

    static override description = spec.description;

    static override examples = [`<%= config.bin %> <%= command.id %> ${spec.exampleId}`, `<%= config.bin %> <%= command.id %> ${spec.exampleId} --json`];

    static override args = { id: Args.string({ description: spec.idDescription, required: true }) };

    async run(): Promise<Resource> {
      const resource = await spec.fetch(this.client(), this.args.id);
      this.renderDetail(spec.rows(resource));
      return resource;
    }
  }
  return ShowCommand;
}
