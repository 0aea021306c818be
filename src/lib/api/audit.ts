// GET /_payctl/audit: the ledger audit of a payctl server.

import { z } from 'zod';
import { call } from './call.js';
import type { ApiClient } from './client.js';

const auditSchema = z.looseObject({
  ok: z.boolean(),
  scope: z.enum(['account', 'all']),
  checks: z.array(
    z.looseObject({
      name: z.string(),
      description: z.string(),
      violations: z.array(z.record(z.string(), z.string())),
    }),
  ),
  skipped: z.array(z.string()),
});
export type AuditReport = z.infer<typeof auditSchema>;

/** Runs the audit for the caller's account, or for every account with the admin key. */
export async function runAudit(client: ApiClient, options: { adminKey?: string } = {}): Promise<AuditReport> {
  const headers = options.adminKey ? { Authorization: `Bearer ${options.adminKey}` } : undefined;
  return call(client, auditSchema, { method: 'GET', path: '/_payctl/audit', headers });
}
