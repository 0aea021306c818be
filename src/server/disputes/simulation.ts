// Sandbox error simulation: ERRDIS<nnn> test values answer a fixed error for one dispute operation.
// The table below is the only source: each operation owns a run of consecutive values, and the
// value -> error map is generated from it.

import { ServiceError, type ErrorName } from '../http/errors.js';

export type DisputeOperation =
  | 'list'
  | 'show'
  | 'provide-evidence'
  | 'accept-claim'
  | 'appeal'
  | 'escalate'
  | 'send-message'
  | 'make-offer'
  | 'acknowledge-return-item';

export interface SimulatedError {
  name: ErrorName;
  /** Only where the spec names one. */
  issue?: string;
}

const COMMON: readonly SimulatedError[] = [
  { name: 'FORBIDDEN' },
  { name: 'INVALID_RESOURCE_ID' },
  { name: 'NOT_ACCEPTABLE' },
  { name: 'UNSUPPORTED_MEDIA_TYPE' },
  { name: 'RATE_LIMIT_REACHED' },
  { name: 'SERVICE_UNAVAILABLE' },
  { name: 'INTERNAL_SERVICE_ERROR' },
  { name: 'AUTHORIZATION_ERROR' },
];

const validation = (...issues: string[]): SimulatedError[] => issues.map((issue) => ({ name: 'VALIDATION_ERROR', issue }));
const UNPROCESSABLE: SimulatedError = { name: 'UNPROCESSABLE_ENTITY' };

const EVIDENCE_ISSUES = validation(
  'INVALID_EVIDENCE_FILE',
  'INVALID_EVIDENCE_TYPE_PROOF_OF_FULFILLMENT',
  'ITEM_ID_IS_MANDATORY_FOR_MULTIPLE_EVIDENCES',
  'MISSING_EVIDENCE_INFO',
  'MISSING_EVIDENCE_TYPE',
  'MISSING_REFUND_ID',
  'MISSING_TRACKING_INFO',
);

/** Each operation's first value and its errors in order (spec §7.1). */
export const SIMULATION_RUNS: ReadonlyArray<{ operation: DisputeOperation; first: number; errors: readonly SimulatedError[] }> = [
  { operation: 'show', first: 15, errors: COMMON },
  {
    operation: 'list',
    first: 23,
    errors: [
      ...COMMON,
      ...validation('DATE_CAN_NOT_BE_IN_FUTURE', 'INVALID_PAGE_SIZE', 'INVALID_START_TIME_FORMAT', 'INVALID_START_TIME_RANGE'),
    ],
  },
  { operation: 'provide-evidence', first: 35, errors: [...COMMON, UNPROCESSABLE, ...EVIDENCE_ISSUES] },
  {
    operation: 'accept-claim',
    first: 51,
    errors: [
      ...COMMON,
      UNPROCESSABLE,
      ...validation(
        'AMOUNT_SHOULD_NOT_BE_PASSED',
        'INSUFFICIENT_FUNDS',
        'INTANGIBLE_ITEM_CANNOT_BE_RETURNED',
        'INVALID_RETURN_SHIPPING_ADDRESS_FORMAT',
        'MISSING_RETURN_SHIPPING_ADDRESS',
      ),
      UNPROCESSABLE,
    ],
  },
  { operation: 'appeal', first: 66, errors: [...COMMON, UNPROCESSABLE, ...EVIDENCE_ISSUES] },
  { operation: 'escalate', first: 82, errors: [...COMMON, UNPROCESSABLE] },
  { operation: 'send-message', first: 91, errors: [...COMMON, UNPROCESSABLE] },
  { operation: 'make-offer', first: 100, errors: [...COMMON, UNPROCESSABLE] },
  { operation: 'acknowledge-return-item', first: 109, errors: [...COMMON, UNPROCESSABLE] },
];

export interface SimulationEntry extends SimulatedError {
  value: string;
  operation: DisputeOperation;
}

function buildTable(): ReadonlyMap<string, SimulationEntry> {
  const table = new Map<string, SimulationEntry>();
  for (const run of SIMULATION_RUNS) {
    run.errors.forEach((error, index) => {
      const value = `ERRDIS${String(run.first + index).padStart(3, '0')}`;
      if (table.has(value)) throw new Error(`ERRDIS table overlaps at ${value}`);
      table.set(value, { value, operation: run.operation, ...error });
    });
  }
  return table;
}

/** Every test value, generated once from the runs. */
export const SIMULATION_TABLE: ReadonlyMap<string, SimulationEntry> = buildTable();

/** The error a test value answers for this operation; undefined for any other value (exact, case-sensitive). */
export function simulatedErrorFor(operation: DisputeOperation, value: unknown): ServiceError | undefined {
  if (typeof value !== 'string') return undefined;
  const entry = SIMULATION_TABLE.get(value);
  if (!entry || entry.operation !== operation) return undefined;
  const details = entry.issue
    ? [{ issue: entry.issue, description: `Sandbox simulation: ${value} answers ${entry.name} / ${entry.issue}.` }]
    : [];
  return new ServiceError(entry.name, details);
}
