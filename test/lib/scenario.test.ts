// Scenario files: parsing, lines, references and request ids (no server).

import { describe, expect, it } from 'vitest';
import { ScenarioFileError, parseScenario, resolveReferences, stepRequestId } from '../../src/lib/scenario.js';

const file = '/tmp/scenario.yaml';

function problem(text: string): ScenarioFileError {
  try {
    parseScenario(text, file);
  } catch (error) {
    if (error instanceof ScenarioFileError) return error;
    throw error;
  }
  throw new Error('parsed without a problem');
}

describe('parseScenario', () => {
  it('keeps each step\'s line, its kind and its input with defaults', () => {
    const scenario = parseScenario(
      ['name: demo', '', 'steps:', '  # a comment', '  - name: sale', '    order: { amount: { currency_code: USD, value: "1.00" } }', '  - name: back', '    refund: { capture_id: "${sale.capture_id}" }', ''].join('\n'),
      file,
    );
    expect(scenario.identity).toBe('demo');
    expect(scenario.steps.map((step) => [step.name, step.kind, step.line])).toEqual([
      ['sale', 'order', 5],
      ['back', 'refund', 7],
    ]);
    expect(scenario.steps[0]?.input).toEqual({ intent: 'CAPTURE', amount: { currency_code: 'USD', value: '1.00' } });
  });

  it('without a name, the identity is the file path', () => {
    expect(parseScenario('steps:\n  - name: a\n    clock: { offset: 1d }\n', file).identity).toBe(file);
  });

  it.each([
    ['steps: []\n', /:1: steps: /],
    ['steps:\n  - top_up: { currency_code: USD, value: "1.00" }\n', /:2: step 1: needs a name/],
    ['steps:\n  - name: a\n    top_up: { currency_code: USD, value: "1.00" }\n    clock: { offset: 1d }\n', /:2: step 1: "a": give exactly one of/],
    ['steps:\n  - name: a\n    as: nobody\n    clock: { offset: 1d }\n', /:3: step 1: "a": "as" must name an earlier account step/],
    ['steps:\n  - name: a\n    clock: { offset: 1d }\n  - name: b\n    as: a\n    clock: { offset: 2d }\n', /:5: step 2: "b": "as: a" is not an account step/],
    ['steps:\n  - name: a\n    dispute: { capture_id: X, reason: BORED }\n', /:3: step "a" \(dispute\): reason: /],
    ['steps:\n  - name: a\n    order: { amount: { currency_code: USD, value: "1.00" }, colour: red }\n', /:3: step "a" \(order\): .*colour/],
    ['extra: 1\nsteps:\n  - name: a\n    clock: { offset: 1d }\n', /:1: .*extra/],
    ['steps:\n  - name: a\n    clock: { offset: 1d }\n  - name: b\n    refund: { capture_id: "${b.id}" }\n', /:5: step 2: "b": \$\{b\.id\} refers to no earlier step/],
    ['steps:\n  - name: a\n    clock: { offset: 1d\n', /:\d+: /],
    ['{"steps": [{"name": "a", "clock": {"offset": "1d"}}, {"name": "a", "clock": {"offset": "2d"}}]}', /:1: step 2: the name "a" is already taken/],
  ])('refuses %j naming the line', (text, expected) => {
    const error = problem(text);
    expect(error.message).toMatch(expected);
    expect(error.message.startsWith(file)).toBe(true);
  });
});

describe('resolveReferences', () => {
  const results = new Map<string, unknown>([
    ['sale', { id: 'O-1', capture_id: 'C-1', purchase_units: [{ payments: { captures: [{ id: 'C-1', amount: { value: '9.00' } }] } }], count: 3 }],
  ]);

  it('replaces references inside strings, and keeps the type of a whole-string reference', () => {
    expect(resolveReferences({ a: '${sale.capture_id}', b: 'order ${sale.id} paid', c: '${sale.count}', d: ['${sale.purchase_units[0].payments.captures.0.amount}'] }, results)).toEqual({
      a: 'C-1',
      b: 'order O-1 paid',
      c: 3,
      d: [{ value: '9.00' }],
    });
  });

  it('says which part of a reference is missing', () => {
    expect(() => resolveReferences('${sale.refund_id}', results)).toThrow('${sale.refund_id}: sale has no "refund_id"');
    expect(() => resolveReferences('${other.id}', results)).toThrow('no result of a step "other"');
  });
});

describe('stepRequestId', () => {
  it('is the same for the same file and step, and differs between files and steps', () => {
    const a = stepRequestId({ identity: 'shop' }, 'sale', 'create');
    expect(stepRequestId({ identity: 'shop' }, 'sale', 'create')).toBe(a);
    expect(stepRequestId({ identity: 'shop2' }, 'sale', 'create')).not.toBe(a);
    expect(stepRequestId({ identity: 'shop' }, 'sale', 'capture')).not.toBe(a);
    expect(a).toMatch(/^payctl-scenario-[0-9a-f]{16}-sale-create$/);
  });
});
