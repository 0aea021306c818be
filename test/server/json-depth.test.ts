// The edge's nesting limit and the idempotency hash's canonical JSON: no recursion over user input.

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/server/http/idempotency.js';
import { MAX_JSON_DEPTH, tooDeepPointer, valueNestingProblem } from '../../src/server/http/json-depth.js';

/** The recursive form canonicalJson had before (overflowed the stack near 2,000 levels): the reference. */
function recursiveCanonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(recursiveCanonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${recursiveCanonical(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

describe('canonicalJson', () => {
  it('writes exactly what the recursive form wrote (stored request hashes stay valid)', () => {
    fc.assert(fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJson(value)).toBe(recursiveCanonical(value));
      }), { numRuns: 2_000 });
    expect(canonicalJson({ b: [1, undefined, { d: undefined, c: 'x' }], a: null, e: [] })).toBe('{"a":null,"b":[1,null,{"c":"x"}],"e":[]}');
  });

  it('does not overflow at any depth', () => {
    let deep: unknown = 1;
    for (let level = 0; level < 200_000; level += 1) deep = level % 2 ? [deep] : { a: deep };
    expect(() => recursiveCanonical(deep)).toThrow(RangeError);
    expect(canonicalJson(deep).length).toBe(200_000 * 2 + 100_000 * 4 + 1);
  });
});

describe('tooDeepPointer', () => {
  const nest = (depth: number) => `${'{"k":['.repeat(depth / 2)}0${']}'.repeat(depth / 2)}`;

  it.each([
    ['{}', undefined],
    ['"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["', undefined],
    [nest(MAX_JSON_DEPTH), undefined],
    [`[${nest(MAX_JSON_DEPTH)}]`, `/0${'/k/0'.repeat(MAX_JSON_DEPTH / 2 - 1)}/k`],
    [`{"a":1,"b":[5,6,${nest(MAX_JSON_DEPTH)}]}`, `/b/2${'/k/0'.repeat(MAX_JSON_DEPTH / 2 - 1)}`],
    [`{"x\\\\\\"y":${'['.repeat(40)}`, `/x\\"y${'/0'.repeat(MAX_JSON_DEPTH - 1)}`],
    [`{"a":{"b":1},"c":${'{"d":'.repeat(40)}`, `/c${'/d'.repeat(MAX_JSON_DEPTH - 1)}`],
    // An escaped quote does not end a string; an escaped backslash before a quote does.
    [`{"a":"\\"${'['.repeat(40)}"}`, undefined],
    [`{"a":"\\\\","b":${'['.repeat(40)}`, `/b${'/0'.repeat(MAX_JSON_DEPTH - 1)}`],
  ])('%#: %s', (text, pointer) => {
    expect(tooDeepPointer(text)).toBe(pointer);
  });

  it('scans 10 MB in one pass without recursion', () => {
    const text = `[${'{"a":[1,2,{"b":"]]]]"}]},'.repeat(400_000)}0]`;
    expect(tooDeepPointer(text)).toBeUndefined();
    // The 33rd bracket opens inside 32 arrays, each at its item 0.
    expect(tooDeepPointer(`${'['.repeat(1_000_000)}`)).toBe('/0'.repeat(MAX_JSON_DEPTH));
  });
});

describe('valueNestingProblem', () => {
  it('refuses a parsed value past the limit, naming it, and passes one at the limit', () => {
    let value: unknown = 1;
    for (let level = 0; level < MAX_JSON_DEPTH; level += 1) value = { a: value };
    expect(valueNestingProblem(value)).toBeUndefined();
    const problem = valueNestingProblem({ a: value });
    expect(problem?.details[0]).toMatchObject({ issue: 'MAX_DEPTH_EXCEEDED', field: '/a'.repeat(MAX_JSON_DEPTH) });
  });
});
