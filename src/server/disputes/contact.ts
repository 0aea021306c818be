// PATCH of a dispute: the seller's communication details (the email and note the buyer may use to
// send evidence). Partner actions, the other patchable part of the public API, are not the seller's.

import { z } from 'zod';
import { isoMillis } from '../core/clock.js';
import type { ServiceContext } from '../core/deps.js';
import { ServiceError, serviceError } from '../http/errors.js';
import { parseWith } from '../http/validation.js';
import { loadDispute, saveDispute } from './lifecycle.js';
import { communicationDetailsSchema, contactEmail, type DisputePatch } from './schema.js';

type Contact = { email?: string; note?: string };

const PATHS: Record<string, readonly string[]> = {
  '/communication_details': ['add', 'replace'],
  '/communication_details/email': ['add', 'replace', 'remove'],
  '/communication_details/note': ['add', 'replace', 'remove'],
};

/** Parses a patch value, naming the field from the root of the patch document. */
function valueOf<S extends z.ZodType>(schema: S, value: unknown, index: number): z.output<S> {
  try {
    return parseWith(schema, value, 'body');
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    const details = error.details.map((detail) => ({ ...detail, field: `/${index}/value${detail.field === '/' ? '' : (detail.field ?? '')}` }));
    throw new ServiceError('INVALID_REQUEST', details);
  }
}

function applyOperation(contact: Contact, operation: DisputePatch[number], index: number): Contact {
  const { op, path } = operation;
  if (path === undefined) throw serviceError('UNPROCESSABLE_ENTITY', 'PATCH_PATH_REQUIRED', 'Each operation needs a path.', { field: `/${index}/path` });
  if (path.startsWith('/partner_actions')) {
    throw serviceError('NOT_AUTHORIZED', 'PERMISSION_DENIED', 'Partner actions are patched by the partner, not the seller.', { field: `/${index}/path`, value: path });
  }
  const allowed = PATHS[path];
  if (!allowed) {
    throw serviceError('UNPROCESSABLE_ENTITY', 'NOT_PATCHABLE', `${path} cannot be patched: a seller can change /communication_details.`, {
      field: `/${index}/path`,
      value: path,
    });
  }
  if (!allowed.includes(op)) {
    throw serviceError('INVALID_REQUEST', 'INVALID_PATCH_OPERATION', `${path} allows ${allowed.join(', ')}.`, { field: `/${index}/op`, value: op });
  }
  if (op !== 'remove' && operation.value === undefined) {
    throw serviceError('UNPROCESSABLE_ENTITY', 'PATCH_VALUE_REQUIRED', `A ${op} operation needs a value.`, { field: `/${index}/value` });
  }
  const member = path === '/communication_details' ? undefined : (path.split('/')[2] as 'email' | 'note');
  const present = member === undefined ? contact.email !== undefined || contact.note !== undefined : contact[member] !== undefined;
  if (op !== 'add' && !present) {
    throw serviceError('INVALID_REQUEST', 'INVALID_PATCH_OPERATION', `${path} is not present${op === 'replace' ? '; use add' : ''}.`, {
      field: `/${index}/op`,
      value: op,
    });
  }
  if (member === undefined) return valueOf(communicationDetailsSchema, operation.value, index);
  const next = { ...contact };
  if (op === 'remove') delete next[member];
  else next[member] = valueOf(member === 'email' ? contactEmail : z.string().min(1).max(2000), operation.value, index);
  return next;
}

/** Changes the seller's communication details of an open dispute; the change is a CUSTOMER.DISPUTE.UPDATED. */
export async function patchDispute(ctx: ServiceContext, id: string, operations: DisputePatch): Promise<void> {
  const dispute = await loadDispute(ctx, id);
  if (dispute.status === 'RESOLVED') {
    throw serviceError('UNPROCESSABLE_ENTITY', 'DISPUTE_RESOLVED', 'The dispute is resolved: its communication details can no longer change.');
  }
  const { time_posted: _posted, ...stored } = dispute.details.communication_details ?? { time_posted: '' };
  let contact: Contact = stored;
  operations.forEach((operation, index) => {
    contact = applyOperation(contact, operation, index);
  });
  if (contact.email === undefined && contact.note === undefined) {
    throw serviceError('INVALID_REQUEST', 'MISSING_REQUIRED_PARAMETER', 'Communication details need an email, a note, or both.', { field: '/communication_details' });
  }
  dispute.details.communication_details = { ...contact, time_posted: isoMillis(ctx.now) };
  await saveDispute(ctx, dispute, 'UPDATED');
}
