// Sandbox test values: an item whose `note` is exactly one of these codes ends with that error.
//
// The public sandbox documents two families. ERRPYO001-014 and 035-040 make the create call fail
// when put in the first item's note; ERRPYO015-034 and 041-061 are item errors shown when the
// batch or item is read. This server applies both families per item, at processing time, so that
// one batch can exercise several of them and the rest of the batch still pays: the item carrying
// the code settles with the listed status and its `errors.name`. Codes not listed here (ERRPYO004,
// 007-009 belong to the cancel call's path; 013 to Venmo) have no effect in a note.

import type { ItemStatus } from './states.js';

export type TestValueStatus = Extract<ItemStatus, 'FAILED' | 'BLOCKED' | 'ONHOLD' | 'UNCLAIMED'>;

export interface ItemErrorOutcome {
  name: string;
  status: TestValueStatus;
  message: string;
}

const outcome = (name: string, status: TestValueStatus, message: string): ItemErrorOutcome => ({ name, status, message });

const CLOSED_MARKET = outcome('CLOSED_MARKET', 'FAILED', "Payouts cannot be sent to the receiver's market.");
const CURRENCY_COMPLIANCE = outcome('CURRENCY_COMPLIANCE', 'BLOCKED', 'The payout was stopped by a currency compliance check.');
const CURRENCY_NOT_SUPPORTED = outcome('CURRENCY_NOT_SUPPORTED_FOR_RECEIVER', 'FAILED', 'The receiver cannot accept this currency.');
const RECEIVER_ACCOUNT_LOCKED = outcome('RECEIVER_ACCOUNT_LOCKED', 'FAILED', "The receiver's account is locked.");
const RECEIVER_COUNTRY = outcome('RECEIVER_COUNTRY_NOT_ALLOWED', 'FAILED', "Payouts to the receiver's country are not allowed.");
const RECEIVER_UNCONFIRMED = outcome('RECEIVER_UNCONFIRMED', 'UNCLAIMED', 'The receiver has not confirmed the account yet.');
const RECEIVER_UNREGISTERED = outcome('RECEIVER_UNREGISTERED', 'UNCLAIMED', 'The receiver has no account yet.');
const RECEIVER_YOUTH = outcome('RECEIVER_YOUTH_ACCOUNT', 'FAILED', 'The receiver holds a youth account, which cannot receive payouts.');
const RECEIVING_LIMIT = outcome('RECEIVING_LIMIT_EXCEEDED', 'ONHOLD', 'The receiver has reached a receiving limit; the item is held.');
const REGULATORY_BLOCKED = outcome('REGULATORY_BLOCKED', 'BLOCKED', 'The payout was blocked for regulatory reasons.');
const REGULATORY_PENDING = outcome('REGULATORY_PENDING', 'ONHOLD', 'The payout is held for a regulatory review.');
const RISK_DECLINE = outcome('RISK_DECLINE', 'FAILED', 'The payout was declined by a risk check.');
const SELF_PAY = outcome('SELF_PAY_NOT_ALLOWED', 'FAILED', 'A sender cannot pay itself.');
const TRANSACTION_LIMIT = outcome('TRANSACTION_LIMIT_EXCEEDED', 'FAILED', 'The amount exceeds a transaction limit.');
const UNDEFINED = outcome('UNDEFINED', 'FAILED', 'The payout failed for an unspecified reason.');
const ZERO_AMOUNT = outcome('ZERO_AMOUNT', 'FAILED', 'The amount is zero after conversion.');
const INVALID_RESOURCE_ID = outcome('INVALID_RESOURCE_ID', 'FAILED', 'The receiver id does not exist.');
const INTERNAL_ERROR = outcome('INTERNAL_ERROR', 'FAILED', 'The item could not be processed because of an internal error.');
const INVALID_EMAIL = outcome('INVALID_EMAIL', 'FAILED', "The receiver's e-mail address is not valid.");
const RECEIVER_LIMITATION = outcome('RECEIVER_ACCOUNT_LIMITATION', 'ONHOLD', "The receiver's account is limited; the item is held.");

/** The one table of note test values and the item outcome each produces. */
export const ITEM_TEST_VALUES: Readonly<Record<string, ItemErrorOutcome>> = {
  // Request family (the public sandbox rejects the whole call).
  ERRPYO001: outcome('SENDER_RESTRICTED', 'FAILED', "The sender's account is restricted."),
  ERRPYO002: outcome('SENDER_EMAIL_UNCONFIRMED', 'FAILED', "The sender's e-mail address is not confirmed."),
  ERRPYO003: outcome('AUTHORIZATION_ERROR', 'FAILED', 'The sender is not authorized to make this payout.'),
  ERRPYO005: outcome('INSUFFICIENT_FUNDS', 'FAILED', "The sender's balance cannot cover this item."),
  ERRPYO006: INTERNAL_ERROR,
  ERRPYO010: outcome('VALIDATION_ERROR', 'FAILED', 'The item did not pass validation.'),
  ERRPYO011: outcome('REQUIRED_SCOPE_MISSING', 'FAILED', 'The access token lacks the payouts scope.'),
  ERRPYO012: outcome('SENDER_LOCKED', 'FAILED', "The sender's account is locked."),
  ERRPYO014: outcome('USER_BUSINESS_ERROR', 'FAILED', 'The item was refused by a business rule.'),
  ERRPYO035: outcome('RATE_LIMIT_VALIDATION', 'FAILED', 'Too many payouts were sent in a short time.'),
  ERRPYO036: outcome('REQUEST_TIMEOUT_EXCEEDED', 'FAILED', 'The item timed out while being processed.'),
  ERRPYO037: outcome('SYNC_MODE_NOT_APPLICABLE', 'FAILED', 'Synchronous mode does not apply to this payout.'),
  ERRPYO038: outcome('NON_HOLDING_CURRENCY', 'FAILED', 'The sender holds no balance in this currency.'),
  ERRPYO039: outcome('PREVIOUS_REQUEST_IN_PROGRESS', 'FAILED', 'An earlier request for this payout is still in progress.'),
  ERRPYO040: outcome('CIP_NOT_VERIFIED', 'FAILED', "The sender's identity is not verified."),
  // Item family (the public sandbox shows these on the item).
  ERRPYO015: CLOSED_MARKET,
  ERRPYO016: CURRENCY_COMPLIANCE,
  ERRPYO017: CURRENCY_NOT_SUPPORTED,
  ERRPYO018: outcome('DUPLICATE_ITEM', 'FAILED', 'The item duplicates an earlier one.'),
  ERRPYO019: RECEIVER_ACCOUNT_LOCKED,
  ERRPYO020: RECEIVER_COUNTRY,
  ERRPYO021: RECEIVER_UNCONFIRMED,
  ERRPYO022: RECEIVER_UNREGISTERED,
  ERRPYO023: RECEIVER_YOUTH,
  ERRPYO024: RECEIVING_LIMIT,
  ERRPYO025: REGULATORY_BLOCKED,
  ERRPYO026: REGULATORY_PENDING,
  ERRPYO027: RISK_DECLINE,
  ERRPYO028: SELF_PAY,
  ERRPYO029: TRANSACTION_LIMIT,
  ERRPYO030: UNDEFINED,
  ERRPYO031: ZERO_AMOUNT,
  ERRPYO032: INVALID_RESOURCE_ID,
  ERRPYO033: INTERNAL_ERROR,
  ERRPYO034: INVALID_EMAIL,
  ERRPYO041: CLOSED_MARKET,
  ERRPYO042: CURRENCY_COMPLIANCE,
  ERRPYO043: CURRENCY_NOT_SUPPORTED,
  ERRPYO044: RECEIVER_ACCOUNT_LOCKED,
  ERRPYO045: RECEIVER_COUNTRY,
  ERRPYO046: RECEIVER_UNCONFIRMED,
  ERRPYO047: RECEIVER_UNREGISTERED,
  ERRPYO048: RECEIVER_YOUTH,
  ERRPYO049: RECEIVING_LIMIT,
  ERRPYO050: REGULATORY_BLOCKED,
  ERRPYO051: REGULATORY_PENDING,
  ERRPYO052: RISK_DECLINE,
  ERRPYO053: SELF_PAY,
  ERRPYO054: TRANSACTION_LIMIT,
  ERRPYO055: UNDEFINED,
  ERRPYO056: ZERO_AMOUNT,
  ERRPYO057: INVALID_RESOURCE_ID,
  ERRPYO058: INTERNAL_ERROR,
  ERRPYO059: INVALID_EMAIL,
  ERRPYO060: RECEIVER_LIMITATION,
  ERRPYO061: RECEIVER_LIMITATION,
};

/** The outcome a note forces, if it is exactly a known test value (case-sensitive). */
export function testValueOutcome(note: string | undefined): ItemErrorOutcome | undefined {
  if (note === undefined || !/^ERRPYO\d{3}$/.test(note)) return undefined;
  return Object.hasOwn(ITEM_TEST_VALUES, note) ? ITEM_TEST_VALUES[note] : undefined;
}

/** The error an item carries when nobody on this server owns its receiver. */
export const UNREGISTERED_RECEIVER = RECEIVER_UNREGISTERED;
export const SELF_PAYMENT = SELF_PAY;
