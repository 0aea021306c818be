// The invoice template API: list, get, create, full replacement, delete.

import { z } from 'zod';
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
const withId = (requestId: string | undefined) => (requestId ? { requestId } : {});

export async function listTemplates(client: ApiClient, options: { page?: number; pageSize?: number } = {}): Promise<TemplateList> {
  const response = await client.request({
    method: 'GET',
    path: '/v2/invoicing/templates',
    query: { page: options.page, page_size: options.pageSize },
  });
  return templateListSchema.parse(response.body);
}

export async function getTemplate(client: ApiClient, id: string): Promise<Template> {
  const response = await client.request({ method: 'GET', path: path(id) });
  return templateSchema.parse(response.body);
}

export async function createTemplate(client: ApiClient, body: unknown, options: { requestId?: string } = {}): Promise<Template> {
  const response = await client.request({
    method: 'POST',
    path: '/v2/invoicing/templates',
    body,
    prefer: 'return=representation',
    ...withId(options.requestId),
  });
  return templateSchema.parse(response.body);
}

/** PUT: the body replaces the whole template (fields left out are removed). */
export async function replaceTemplate(client: ApiClient, id: string, body: unknown, options: { requestId?: string } = {}): Promise<Template> {
  const response = await client.request({
    method: 'PUT',
    path: path(id),
    body,
    prefer: 'return=representation',
    ...withId(options.requestId),
  });
  return templateSchema.parse(response.body);
}

export async function deleteTemplate(client: ApiClient, id: string, options: { requestId?: string } = {}): Promise<void> {
  await client.request({ method: 'DELETE', path: path(id), ...withId(options.requestId) });
}
