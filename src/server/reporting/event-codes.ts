// The public transaction event code of each kind of balance movement, and back.

import type { MovementKind } from '../ledger/store.js';

/**
 * One code per movement kind (a dispute's reversal splits by direction):
 * - T0006 a capture of a checkout payment;
 * - T1107 a refund the merchant gave;
 * - T1106 a reversal after a dispute was decided for the buyer;
 * - T1202 its reinstatement after a decision for the seller;
 * - T0400 a payout item sent from the balance, T0100 its fee, T1105 its amount and fee returned
 *   (an unclaimed item given back);
 * - T0300 a sandbox top-up (a funding of the balance).
 */
export const EVENT_CODES = ['T0006', 'T1107', 'T1106', 'T1202', 'T0400', 'T0100', 'T1105', 'T0300'] as const;
export type EventCode = (typeof EVENT_CODES)[number];

export interface KindMatch {
  kind: MovementKind;
  /** Only credits (> 0) or only debits (< 0); either when undefined. */
  sign?: 1 | -1;
}

export const EVENT_CODE_KINDS: Record<EventCode, KindMatch> = {
  T0006: { kind: 'CAPTURE' },
  T1107: { kind: 'REFUND' },
  T1106: { kind: 'REVERSAL', sign: -1 },
  T1202: { kind: 'REVERSAL', sign: 1 },
  T0400: { kind: 'PAYOUT' },
  T0100: { kind: 'PAYOUT_FEE' },
  T1105: { kind: 'PAYOUT_RETURN' },
  T0300: { kind: 'TOP_UP' },
};

export function eventCodeOf(kind: string, amountMinor: bigint): EventCode {
  const found = EVENT_CODES.find((code) => {
    const match = EVENT_CODE_KINDS[code];
    return match.kind === kind && (match.sign === undefined || (match.sign > 0 ? amountMinor > 0n : amountMinor < 0n));
  });
  if (found === undefined) throw new Error(`reporting: no event code for a ${kind} movement of ${amountMinor}`);
  return found;
}
