// The invoice template API: list, get, create, full replacement, delete.

import { z } from 'zod';
import { call, pageQuery } from './call.js';
import type { ApiClient } from './client.js';
import { linkSchema } from './types.js';

export const templateSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  default_template: z.boolean().optional(),
  standard_template: z.boolean().optional(),
  unit_of_measure: z.string().optional(),
  template_info: z.record(z.string(), z.unknown()).optional(),
  settings: z.record(z.string(), z.unknown()).optional(),
  links: z.array(linkSchema).optional(),
});
export type Template = z.infer<typeof templateSchema>;

const templateListSchema = z.looseObject({ templates: z.array(templateSchema), links: z.array(linkSchema).optional() });
export type TemplateList = z.infer<typeof templateListSchema>;

const path = (id: string) => `/v2/invoicing/templates/${encodeURIComponent(id)}`;

export async function listTemplates(client: ApiClient, options: { page?: number; pageSize?: number } = {}): Promise<TemplateList> {
  return call(client, templateListSchema, { method: 'GET', path: '/v2/invoicing/templates', query: pageQuery(options) });
}

export async function getTemplate(client: ApiClient, id: string): Promise<Template> {
  return call(client, templateSchema, { method: 'GET', path: path(id) });
}

export async function createTemplate(client: ApiClient, body: unknown, options: { requestId?: string } = {}): Promise<Template> {
  return call(client, templateSchema, { method: 'POST', path: '/v2/invoicing/templates', body, prefer: 'return=representation', requestId: options.requestId });
}

/** PUT: the body replaces the whole template (fields left out are removed). */
export async function replaceTemplate(client: ApiClient, id: string, body: unknown, options: { requestId?: string } = {}): Promise<Template> {
  return call(client, templateSchema, { method: 'PUT', path: path(id), body, prefer: 'return=representation', requestId: options.requestId });
}

export async function deleteTemplate(client: ApiClient, id: string, options: { requestId?: string } = {}): Promise<void> {
  await client.request({ method: 'DELETE', path: path(id), requestId: options.requestId });
}
