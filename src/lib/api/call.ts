// The shape every endpoint function shares: one request, its answer checked against a schema.

import type { z } from 'zod';
import type { ApiClient, ApiRequest, QueryValue } from './client.js';

/** Sends `request` and returns its answer parsed by `schema` (a mismatch throws). */
export async function call<S extends z.ZodType>(client: ApiClient, schema: S, request: ApiRequest): Promise<z.output<S>> {
  const response = await client.request(request);
  return schema.parse(response.body);
}

/** Paging options of the numbered-page lists (invoices, templates, payout batches). */
export interface PageOptions {
  page?: number;
  pageSize?: number;
  totalRequired?: boolean;
}

/** The paging options under the API's query names; the client leaves out those not given. */
export function pageQuery(options: PageOptions): Record<string, QueryValue> {
  return { page: options.page, page_size: options.pageSize, total_required: options.totalRequired };
}
