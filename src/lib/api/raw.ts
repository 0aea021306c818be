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
  return client.request({
    method: request.method,
    path: request.path,
    ...(request.body === undefined ? {} : { rawBody: request.body }),
    ...(request.headers ? { headers: request.headers } : {}),
    ...(request.requestId ? { requestId: request.requestId } : {}),
  });
}
