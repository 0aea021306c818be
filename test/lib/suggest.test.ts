import { describe, expect, it } from 'vitest';
import { editDistance, shellLine, suggestCommand } from '../../src/lib/suggest.js';

const IDS = ['payments:refund', 'payments:reauthorize', 'payments:get', 'payments:capture', 'payouts:item:get', 'auth:status', 'disputes:list', 'sandbox:clock'];

describe('suggestCommand', () => {
  const cases: Array<[string, string[], string | undefined, string[]]> = [
    // oclif's id holds every word before the first flag; the words after the command are its arguments.
    ['payments:refnd:X', ['--yes'], 'payments:refund', ['X', '--yes']],
    ['payments:refunds:X', ['--amount', '1.00'], 'payments:refund', ['X', '--amount', '1.00']],
    ['paymnts:get:CAP-1', [], 'payments:get', ['CAP-1']],
    ['payouts:itm:get:PI-1', [], 'payouts:item:get', ['PI-1']],
    ['auth:statu', [], 'auth:status', []],
    ['frobnicate', [], undefined, []],
    ['payments:zzzzz', [], undefined, []],
  ];
  it.each(cases)('%s %j -> %s %j', (id, argv, expected, expectedArgv) => {
    const suggestion = suggestCommand(id, argv, IDS);
    expect(suggestion?.id).toBe(expected);
    if (expected) expect(suggestion?.argv).toEqual(expectedArgv);
  });

  it('never suggests reauthorize for refnd', () => {
    expect(editDistance('payments:refnd', 'payments:refund')).toBe(1);
    expect(editDistance('payments:refnd', 'payments:reauthorize')).toBeGreaterThan(4);
  });

  it('quotes what a shell would split', () => {
    expect(shellLine(['payctl', 'payments', 'refund', 'X', '--note', "it's late"])).toBe(`payctl payments refund X --note 'it'\\''s late'`);
  });
});
