// Schemas are built on first use (http/validation.ts onFirstUse); the z.lazy handles the schema
// modules export parse as the schemas themselves did.

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { deferredSchemas, onFirstUse } from '../../src/server/http/validation.js';
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

describe('deferredSchemas', () => {
  it('builds the set once, when a handle first parses', () => {
    let builds = 0;
    const { a, b } = deferredSchemas(() => {
      builds += 1;
      return { a: z.string(), b: z.number() };
    });
    expect(builds).toBe(0);
    expect(a.parse('x')).toBe('x');
    expect(b.safeParse('x').success).toBe(false);
    expect(b.parse(2)).toBe(2);
    expect(builds).toBe(1);
  });

  it('a handle to a name the set lacks fails when it parses, not silently', () => {
    const handles = deferredSchemas(() => ({ a: z.string() })) as unknown as Record<string, z.ZodType>;
    expect(() => handles.missing!.parse('x')).toThrow('no schema named missing');
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
