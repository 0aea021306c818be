// JSON Patch (RFC 6902) bodies as the API takes them: the request's shape, and the checks every
// patchable resource makes of one operation before applying it (orders, trackers, disputes).

import { z } from 'zod';
import { ServiceError, serviceError } from './errors.js';
import { parseWith } from './validation.js';

export const PATCH_OPS = ['add', 'remove', 'replace', 'move', 'copy', 'test'] as const;
export type PatchOp = (typeof PATCH_OPS)[number];

export interface PatchOperation {
  op: PatchOp;
  path?: string | undefined;
  value?: unknown;
  from?: string | undefined;
}

/** A JSON Patch document as sent; which paths and operations apply is the resource's rule. */
export function jsonPatchSchema(limits: { maxPathLength: number; maxOperations: number }) {
  return z
    .array(
      z.object({
        op: z.enum(PATCH_OPS),
        path: z.string().max(limits.maxPathLength).optional(),
        value: z.unknown().optional(),
        from: z.string().max(limits.maxPathLength).optional(),
      }),
    )
    .min(1)
    .max(limits.maxOperations);
}

/** The operation's path (422 PATCH_PATH_REQUIRED without one). */
export function patchPath(operation: PatchOperation, index: number): string {
  if (operation.path === undefined) throw serviceError('UNPROCESSABLE_ENTITY', 'PATCH_PATH_REQUIRED', 'Each operation needs a path.', { field: `/${index}/path` });
  return operation.path;
}

/** Refuses an operation the path does not allow (400 INVALID_PATCH_OPERATION) and an add or replace without a value (422). */
export function checkPatchOperation(operation: PatchOperation, index: number, path: string, allowed: readonly PatchOp[]): void {
  if (!allowed.includes(operation.op)) {
    throw serviceError('INVALID_REQUEST', 'INVALID_PATCH_OPERATION', `${path} allows ${allowed.join(', ')}.`, { field: `/${index}/op`, value: operation.op });
  }
  if (operation.op !== 'remove' && operation.value === undefined) {
    throw serviceError('UNPROCESSABLE_ENTITY', 'PATCH_VALUE_REQUIRED', `A ${operation.op} operation needs a value.`, { field: `/${index}/value` });
  }
}

/** Parses an operation's value, naming a bad field by its pointer from the root of the patch document. */
export function patchValue<S extends z.ZodType>(schema: S, value: unknown, index: number): z.output<S> {
  try {
    return parseWith(schema, value, 'body');
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    const details = error.details.map((detail) => ({ ...detail, field: `/${index}/value${detail.field === '/' ? '' : (detail.field ?? '')}` }));
    throw new ServiceError('INVALID_REQUEST', details);
  }
}
