// PATCH of a dispute: the seller's communication details (the email and note the buyer may use to
// send evidence). Partner actions, the other patchable part of the public API, are not the seller's.

import { z } from 'zod';
import { isoMillis } from '../core/clock.js';
import type { ServiceContext } from '../core/deps.js';
import { serviceError } from '../http/errors.js';
import { checkPatchOperation, patchPath, patchValue, type PatchOp } from '../http/json-patch.js';
import { loadDispute, saveDispute } from './lifecycle.js';
import { communicationDetailsSchema, contactEmail, type DisputePatch } from './schema.js';

type Contact = { email?: string; note?: string };

const PATHS: Record<string, readonly PatchOp[]> = {
  '/communication_details': ['add', 'replace'],
  '/communication_details/email': ['add', 'replace', 'remove'],
  '/communication_details/note': ['add', 'replace', 'remove'],
};

function applyOperation(contact: Contact, operation: DisputePatch[number], index: number): Contact {
  const { op } = operation;
  const path = patchPath(operation, index);
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
  checkPatchOperation(operation, index, path, allowed);
  const member = path === '/communication_details' ? undefined : (path.split('/')[2] as 'email' | 'note');
  const present = member === undefined ? contact.email !== undefined || contact.note !== undefined : contact[member] !== undefined;
  if (op !== 'add' && !present) {
    throw serviceError('INVALID_REQUEST', 'INVALID_PATCH_OPERATION', `${path} is not present${op === 'replace' ? '; use add' : ''}.`, {
      field: `/${index}/op`,
      value: op,
    });
  }
  if (member === undefined) return patchValue(communicationDetailsSchema, operation.value, index);
  const next = { ...contact };
  if (op === 'remove') delete next[member];
  else next[member] = patchValue(member === 'email' ? contactEmail : z.string().min(1).max(2000), operation.value, index);
  return next;
}

/** Changes the seller's communication details of an open dispute; the change is a CUSTOMER.DISPUTE.UPDATED. */
export async function patchDispute(ctx: ServiceContext, id: string, operations: DisputePatch): Promise<void> {
  const dispute = await loadDispute(ctx, id, { forUpdate: true });
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
