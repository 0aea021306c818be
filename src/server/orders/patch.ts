// JSON Patch of an order (PATCH /v2/checkout/orders/{id}): the paths and operations the public API
// allows, applied to the order as it was created, then the creation rules run again on the result.

import { ServiceError, serviceError } from '../http/errors.js';
import { checkPatchOperation, patchPath, type PatchOp as Op } from '../http/json-patch.js';
import type { PatchRequest } from './schema.js';
type Json = Record<string, unknown>;

const ANY: readonly Op[] = ['replace', 'add', 'remove'];
const SET: readonly Op[] = ['replace', 'add'];

/** Order-level paths and their operations. */
const ORDER_PATHS: Record<string, readonly Op[]> = {
  '/intent': ['replace'],
  '/payer': SET,
  '/purchase_units': SET,
  '/application_context/client_configuration': SET,
};

/** Paths inside one purchase unit (after its `@reference_id=='…'` or index selector). */
const UNIT_PATHS: Record<string, readonly Op[]> = {
  '/custom_id': ANY,
  '/description': ANY,
  '/payee/email_address': ['replace'],
  '/shipping/name': SET,
  '/shipping/address': SET,
  '/shipping/type': SET,
  '/soft_descriptor': ['replace', 'remove'],
  '/amount': ['replace'],
  '/items': ANY,
  '/invoice_id': ANY,
  '/payment_instruction': ['replace'],
  '/payment_instruction/disbursement_mode': ['replace'],
  '/payment_instruction/platform_fees': ANY,
  '/supplementary_data/airline': ANY,
  '/supplementary_data/card': ANY,
};

const UNIT_SELECTOR = /^\/purchase_units\/(?:@reference_id=='([^']*)'|([0-9]+))(\/.*)$/;

/** The order in the shape of a create request, which the patch is applied to. */
export interface PatchableOrder {
  intent: string;
  payer?: Json;
  purchase_units: Json[];
  application_context?: Json;
}

interface Target {
  /** The object that holds the member, and the member's name. */
  parentPath: string[];
  member: string;
  allowed: readonly Op[];
}

const decode = (segment: string) => segment.replace(/~1/g, '/').replace(/~0/g, '~');

function notPatchable(index: number, path: string): never {
  throw serviceError('UNPROCESSABLE_ENTITY', 'NOT_PATCHABLE', `${path} cannot be patched: see the list of patchable order fields.`, {
    field: `/${index}/path`,
    value: path,
  });
}

function resolveTarget(order: PatchableOrder, path: string, index: number): Target {
  if (!path.startsWith('/')) {
    throw serviceError('UNPROCESSABLE_ENTITY', 'INVALID_JSON_POINTER_FORMAT', 'The path must be a JSON Pointer (RFC 6901), starting with "/".', {
      field: `/${index}/path`,
      value: path,
    });
  }
  const top = ORDER_PATHS[path];
  if (top) {
    const segments = path.slice(1).split('/').map(decode);
    return { parentPath: segments.slice(0, -1), member: segments.at(-1) ?? '', allowed: top };
  }
  const match = UNIT_SELECTOR.exec(path);
  if (!match) notPatchable(index, path);
  const [, referenceId, position, rest = ''] = match;
  const allowed = UNIT_PATHS[rest];
  if (!allowed) notPatchable(index, path);
  const unitIndex =
    referenceId !== undefined ? order.purchase_units.findIndex((unit) => unit.reference_id === referenceId) : Number(position);
  if (unitIndex < 0 || unitIndex >= order.purchase_units.length) {
    throw serviceError('UNPROCESSABLE_ENTITY', 'REFERENCE_ID_NOT_FOUND', 'No purchase unit of this order matches the path.', {
      field: `/${index}/path`,
      value: path,
    });
  }
  const segments = rest.slice(1).split('/').map(decode);
  return { parentPath: ['purchase_units', String(unitIndex), ...segments.slice(0, -1)], member: segments.at(-1) ?? '', allowed };
}

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The object holding the member; `add` creates missing parents (e.g. `shipping` for `/shipping/address`). */
function parentOf(order: PatchableOrder, target: Target, create: boolean): Json | undefined {
  let current: unknown = order;
  for (const key of target.parentPath) {
    const holder = current as Json;
    if (Array.isArray(holder)) {
      current = holder[Number(key)];
      continue;
    }
    if (holder[key] === undefined && create) holder[key] = {};
    current = holder[key];
    if (!isObject(current) && !Array.isArray(current)) return undefined;
  }
  return isObject(current) ? current : undefined;
}

function invalidOperation(index: number, op: string, why: string): never {
  throw serviceError('INVALID_REQUEST', 'INVALID_PATCH_OPERATION', `The ${op} operation cannot be honoured: ${why}`, {
    field: `/${index}/op`,
    value: op,
  });
}

const escape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Applies every operation in order to a copy of the order and returns the copy. `targets`, when
 * given, receives for each operation the pointer in the order that it set.
 */
export function applyOrderPatch(original: PatchableOrder, operations: PatchRequest, targets: string[] = []): PatchableOrder {
  const order = structuredClone(original);
  operations.forEach((operation, index) => {
    const { op } = operation;
    const path = patchPath(operation, index);
    const target = resolveTarget(order, path, index);
    targets[index] = `/${[...target.parentPath, target.member].map(escape).join('/')}`;
    checkPatchOperation(operation, index, path, target.allowed);
    const parent = parentOf(order, target, op === 'add');
    const present = parent !== undefined && parent[target.member] !== undefined;
    if (op === 'add' && present) invalidOperation(index, op, `${path} is already present; use replace.`);
    if (op !== 'add' && !present) invalidOperation(index, op, `${path} is not present${op === 'replace' ? '; use add' : ''}.`);
    if (!parent) invalidOperation(index, op, `the parent of ${path} is not present.`);
    if (op === 'remove') delete parent[target.member];
    else parent[target.member] = operation.value;
  });
  return order;
}

/**
 * The field of an error in the patched order, named where the request carries it: a field at or
 * below the pointer an operation set is in that operation's value (`/1/value/breakdown/...`); a
 * field above it (a payee whose email address was replaced) is the value itself. The last
 * operation that set it wins; a field no operation set keeps the order's pointer.
 */
export function fieldInRequest(field: string, targets: readonly string[]): string {
  for (let index = targets.length - 1; index >= 0; index -= 1) {
    const target = targets[index] as string;
    if (field === target || field.startsWith(`${target}/`)) return `/${index}/value${field.slice(target.length)}`;
  }
  for (let index = targets.length - 1; index >= 0; index -= 1) {
    if ((targets[index] as string).startsWith(`${field}/`)) return `/${index}/value`;
  }
  return field;
}

/** Runs a check of the patched order; its errors name the request's fields (fieldInRequest). */
export async function checkPatched<T>(targets: readonly string[], check: () => Promise<T> | T): Promise<T> {
  try {
    return await check();
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    const details = error.details.map((detail) =>
      detail.location === 'body' && typeof detail.field === 'string' && detail.field.startsWith('/')
        ? { ...detail, field: fieldInRequest(detail.field, targets) }
        : detail,
    );
    throw new ServiceError(error.errorName, details, { headers: error.headers, message: error.message, links: error.links });
  }
}
