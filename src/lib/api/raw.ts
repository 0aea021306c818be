// Arbitrary authenticated requests for `payctl api`.

import type { ApiClient, ApiResponse } from './client.js';

export interface RawRequest {
  method: string;
  path: string;
  /** JSON text sent exactly as given. */
  body?: string;
  headers?: Record<string, string>;
  requestId?: string;
}

export async function sendRawRequest(client: ApiClient, request: RawRequest): Promise<ApiResponse> {
  const { method, path, body, headers, requestId } = request;
  return client.request({ method, path, rawBody: body, headers, requestId });
}
