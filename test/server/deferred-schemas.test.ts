// Schemas are built on first use (http/validation.ts onFirstUse); the z.lazy handles the schema
// modules export parse as the schemas themselves did.

import { describe, expect, it } from 'vitest';
import { onFirstUse } from '../../src/server/http/validation.js';
import { moneySchema as paymentsMoney } from '../../src/server/payments/schema.js';
import { invoiceSchema } from '../../src/server/invoicing/schema.js';

describe('onFirstUse', () => {
  it('makes nothing until asked, then makes once and keeps the value (undefined included)', () => {
    let calls = 0;
    const get = onFirstUse(() => {
      calls += 1;
      return calls === 1 ? undefined : 'again';
    });
    expect(calls).toBe(0);
    expect(get()).toBeUndefined();
    expect(get()).toBeUndefined();
    expect(calls).toBe(1);
  });

  it('does not keep a failure: the next call tries again', () => {
    let calls = 0;
    const get = onFirstUse(() => {
      calls += 1;
      if (calls === 1) throw new Error('first');
      return 'second';
    });
    expect(() => get()).toThrow('first');
    expect(get()).toBe('second');
  });
});

describe('deferred schemas', () => {
  it('parse and refuse through their lazy handles', () => {
    expect(paymentsMoney.parse({ currency_code: 'USD', value: '1.00' })).toEqual({ currency_code: 'USD', value: '1.00' });
    const refused = paymentsMoney.safeParse({ currency_code: 'US', value: 'x' });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues.map((issue) => issue.path.join('.')).sort()).toEqual(['currency_code', 'value']);
    const invoice = invoiceSchema.safeParse({ detail: { currency_code: 'USD', invoice_date: '2026-02-30' } });
    expect(invoice.success).toBe(false);
    expect(invoice.error?.issues[0]?.path).toEqual(['detail', 'invoice_date']);
  });
});
