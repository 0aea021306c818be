// Purchase units: amount, breakdown and item rules, normalised for storage.

import { z } from 'zod';
import { fromMinorUnits, money, type Money } from '../../lib/money.js';
import { serviceError } from '../http/errors.js';
import { amountOf, checkBreakdown, type MoneyInput } from '../payments/api.js';
import type { PurchaseUnitInput } from './schema.js';

const storedMoneySchema = z.object({ currency_code: z.string(), value: z.string() });
export const storedUnitSchema = z.object({
  reference_id: z.string(),
  amount: storedMoneySchema.extend({ breakdown: z.record(z.string(), storedMoneySchema).optional() }),
  payee: z.object({ email_address: z.string(), merchant_id: z.string() }),
  description: z.string().optional(),
  custom_id: z.string().optional(),
  invoice_id: z.string().optional(),
  soft_descriptor: z.string().optional(),
  items: z.array(z.object({}).loose()).optional(),
  shipping: z.object({}).loose().optional(),
  payment_instruction: z.object({}).loose().optional(),
  supplementary_data: z.object({}).loose().optional(),
});
export type StoredUnit = z.output<typeof storedUnitSchema>;

export interface CheckedUnit {
  unit: StoredUnit;
  amountMinor: bigint;
}

function sameCurrency(item: MoneyInput, currency: string, field: string): void {
  if (item.currency_code !== currency) {
    throw serviceError('UNPROCESSABLE_ENTITY', 'CURRENCY_MISMATCH', `Every amount of a purchase unit must be in ${currency}.`, {
      field: `${field}/currency_code`,
      value: item.currency_code,
    });
  }
}

/** Checks items against item_total and tax_total; returns the items with normalised amounts. */
function checkItems(input: PurchaseUnitInput, pointer: string, parts: Map<string, bigint>): Array<Record<string, unknown>> {
  const items = input.items ?? [];
  if (items.length === 0) return [];
  const currency = input.amount.currency_code;
  let itemTotal = 0n;
  let taxTotal = 0n;
  let anyTax = false;
  const normalised = items.map((item, index) => {
    const field = `${pointer}/items/${index}`;
    sameCurrency(item.unit_amount, currency, `${field}/unit_amount`);
    const quantity = BigInt(item.quantity);
    const unitAmount = amountOf(item.unit_amount, `${field}/unit_amount`, 'non-negative');
    itemTotal += unitAmount * quantity;
    const out: Record<string, unknown> = { ...item, unit_amount: money(unitAmount, currency) };
    if (item.tax) {
      sameCurrency(item.tax, currency, `${field}/tax`);
      anyTax = true;
      const tax = amountOf(item.tax, `${field}/tax`, 'non-negative');
      taxTotal += tax * quantity;
      out.tax = money(tax, currency);
    }
    return out;
  });
  const declaredItems = parts.get('item_total');
  if (declaredItems === undefined) {
    throw serviceError('UNPROCESSABLE_ENTITY', 'ITEM_TOTAL_REQUIRED', 'With items, amount.breakdown.item_total is required.', {
      field: `${pointer}/amount/breakdown/item_total`,
    });
  }
  if (declaredItems !== itemTotal) {
    throw serviceError(
      'UNPROCESSABLE_ENTITY',
      'ITEM_TOTAL_MISMATCH',
      `item_total must equal the sum of unit_amount x quantity (${fromMinorUnits(itemTotal, currency)}).`,
      { field: `${pointer}/amount/breakdown/item_total/value`, value: fromMinorUnits(declaredItems, currency) },
    );
  }
  const declaredTax = parts.get('tax_total');
  if (anyTax && declaredTax === undefined) {
    throw serviceError('UNPROCESSABLE_ENTITY', 'TAX_TOTAL_REQUIRED', 'With item taxes, amount.breakdown.tax_total is required.', {
      field: `${pointer}/amount/breakdown/tax_total`,
    });
  }
  if (anyTax && declaredTax !== taxTotal) {
    throw serviceError(
      'UNPROCESSABLE_ENTITY',
      'TAX_TOTAL_MISMATCH',
      `tax_total must equal the sum of tax x quantity (${fromMinorUnits(taxTotal, currency)}).`,
      { field: `${pointer}/amount/breakdown/tax_total/value`, value: fromMinorUnits(declaredTax ?? 0n, currency) },
    );
  }
  return normalised;
}

/** Validates one purchase unit and returns it as stored, with exact amounts. */
export function checkUnit(
  input: PurchaseUnitInput,
  index: number,
  payee: { email_address: string; merchant_id: string },
): CheckedUnit {
  const pointer = `/purchase_units/${index}`;
  const currency = input.amount.currency_code;
  const amountMinor = amountOf(input.amount, `${pointer}/amount`);
  const parts = checkBreakdown(input.amount, `${pointer}/amount`, amountMinor);
  const items = checkItems(input, pointer, parts);
  const amount: Money & { breakdown?: Record<string, Money> } = money(amountMinor, currency);
  if (parts.size > 0) amount.breakdown = Object.fromEntries([...parts].map(([part, minor]) => [part, money(minor, currency)]));
  const unit: StoredUnit = { reference_id: input.reference_id ?? 'default', amount, payee };
  for (const key of ['description', 'custom_id', 'invoice_id', 'soft_descriptor'] as const) {
    const value = input[key];
    if (value !== undefined) unit[key] = value;
  }
  if (items.length > 0) unit.items = items;
  if (input.shipping) unit.shipping = input.shipping;
  if (input.payment_instruction) unit.payment_instruction = input.payment_instruction;
  if (input.supplementary_data) unit.supplementary_data = input.supplementary_data;
  return { unit, amountMinor };
}

/** Rules across units: one currency, reference ids present and unique when there are several. */
export function checkUnitSet(units: readonly PurchaseUnitInput[]): void {
  const currency = units[0]?.amount.currency_code;
  const seen = new Set<string>();
  units.forEach((unit, index) => {
    if (unit.amount.currency_code !== currency) {
      throw serviceError('UNPROCESSABLE_ENTITY', 'MULTI_CURRENCY_ORDER', 'All purchase units must use one currency.', {
        field: `/purchase_units/${index}/amount/currency_code`,
        value: unit.amount.currency_code,
      });
    }
    if (units.length === 1) return;
    if (unit.reference_id === undefined) {
      throw serviceError('UNPROCESSABLE_ENTITY', 'REFERENCE_ID_REQUIRED', 'With several purchase units each needs a reference_id.', {
        field: `/purchase_units/${index}/reference_id`,
      });
    }
    if (seen.has(unit.reference_id)) {
      throw serviceError('UNPROCESSABLE_ENTITY', 'DUPLICATE_REFERENCE_ID', 'reference_id must be unique within the order.', {
        field: `/purchase_units/${index}/reference_id`,
        value: unit.reference_id,
      });
    }
    seen.add(unit.reference_id);
  });
}
