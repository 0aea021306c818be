// Scenario files: reading one (YAML or JSON) into checked steps that remember their line.

import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { LineCounter, isNode, parseDocument, type Document } from 'yaml';
import { z } from 'zod';
import { UsageError, type ErrorReport } from './api/errors.js';
import { STEP_KINDS, stepSchemas, type StepKind } from './scenario-steps.js';

export interface ScenarioStep {
  name: string;
  kind: StepKind;
  /** The step's input as written: may hold ${step.path} references, resolved when it runs. */
  input: Record<string, unknown>;
  /** The account step whose credentials the step runs with (default: the CLI's own). */
  as?: string;
  line: number;
}

export interface Scenario {
  /** What request ids derive from: the file's `name`, else its absolute path. */
  identity: string;
  name?: string;
  file: string;
  steps: ScenarioStep[];
}

/** A file that cannot run as written: says where. */
export class ScenarioFileError extends UsageError {
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    readonly problem: string,
  ) {
    super(`${file}${line === undefined ? '' : `:${line}`}: ${problem}`);
    this.name = 'ScenarioFileError';
  }

  override report(): ErrorReport {
    return { ...super.report(), file: this.file, ...(this.line === undefined ? {} : { line: this.line }) } as ErrorReport;
  }
}

const STEP_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
const REFERENCE = /\$\{([^}]*)\}/g;

const fileSchema = z.strictObject({
  name: z.string().min(1).max(200).optional(),
  description: z.string().optional(),
  steps: z.array(z.record(z.string(), z.unknown())).min(1),
});

export async function loadScenario(path: string): Promise<Scenario> {
  const file = resolve(path);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ScenarioFileError(path, undefined, `cannot read the file: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  return parseScenario(text, file);
}

/** Parses and checks a scenario's text (JSON is read as the YAML it also is, so lines are known either way). */
export function parseScenario(text: string, file: string): Scenario {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const lineAt = (offset: number | undefined) => (offset === undefined ? undefined : lines.linePos(offset).line);
  const [syntax] = doc.errors;
  if (syntax) throw new ScenarioFileError(file, lineAt(syntax.pos[0]), syntax.message.split('\n')[0] ?? 'not YAML or JSON');
  const lineOf = (path: readonly (string | number)[]) => lineAt(nodeStart(doc, path));

  const parsed = fileSchema.safeParse(doc.toJS());
  if (!parsed.success) throw fromZod(file, parsed.error, [], lineOf);
  const steps: ScenarioStep[] = [];
  const seen = new Set<string>();
  parsed.data.steps.forEach((raw, index) => {
    const at = ['steps', index];
    const where = (problem: string, sub: readonly (string | number)[] = []) => new ScenarioFileError(file, lineOf([...at, ...sub]), `step ${index + 1}: ${problem}`);
    const name = raw.name;
    if (typeof name !== 'string' || !STEP_NAME.test(name)) {
      throw where('needs a name: a letter, then letters, digits, _ or - (at most 64)', ['name']);
    }
    if (seen.has(name)) throw where(`the name "${name}" is already taken by an earlier step`, ['name']);
    const kinds = STEP_KINDS.filter((kind) => kind in raw);
    const unknown = Object.keys(raw).filter((key) => key !== 'name' && key !== 'as' && !(STEP_KINDS as readonly string[]).includes(key));
    if (unknown.length > 0) throw where(`"${name}": unknown key "${unknown[0]}" (a step has a name, optionally "as", and one of: ${STEP_KINDS.join(', ')})`, [unknown[0] as string]);
    if (kinds.length !== 1) throw where(`"${name}": give exactly one of ${STEP_KINDS.join(', ')} (found ${kinds.length === 0 ? 'none' : kinds.join(' and ')})`);
    const kind = kinds[0] as StepKind;
    const checked = stepSchemas[kind].safeParse(raw[kind] ?? {});
    if (!checked.success) throw fromZod(file, checked.error, [...at, kind], lineOf, `step "${name}" (${kind}): `);
    const as = raw.as;
    if (as !== undefined && (typeof as !== 'string' || !seen.has(as))) throw where(`"${name}": "as" must name an earlier account step`, ['as']);
    if (as !== undefined && steps.find((step) => step.name === as)?.kind !== 'account') throw where(`"${name}": "as: ${String(as)}" is not an account step`, ['as']);
    for (const reference of referencesIn(raw[kind])) {
      const [head] = reference.split('.');
      if (!head || !seen.has(head)) {
        throw where(`"${name}": \${${reference}} refers to no earlier step${head && !seen.has(head) ? ` (no step "${head}" before this one)` : ''}`, [kind]);
      }
    }
    seen.add(name);
    steps.push({ name, kind, input: checked.data as Record<string, unknown>, ...(as === undefined ? {} : { as: as as string }), line: lineOf(at) ?? 1 });
  });
  return { identity: parsed.data.name ?? file, ...(parsed.data.name ? { name: parsed.data.name } : {}), file, steps };
}

/** Every ${...} reference in a value, at any depth. */
export function referencesIn(value: unknown): string[] {
  if (typeof value === 'string') return [...value.matchAll(REFERENCE)].map((match) => (match[1] ?? '').trim());
  if (Array.isArray(value)) return value.flatMap(referencesIn);
  if (value && typeof value === 'object') return Object.values(value).flatMap(referencesIn);
  return [];
}

/**
 * The value with each ${step.path} replaced from earlier results. A string that is one reference
 * and nothing else takes the referred value as it is (a number stays a number, an object an object).
 */
export function resolveReferences(value: unknown, results: ReadonlyMap<string, unknown>): unknown {
  if (typeof value === 'string') {
    const whole = /^\$\{([^}]*)\}$/.exec(value);
    if (whole) return lookup((whole[1] ?? '').trim(), results);
    return value.replace(REFERENCE, (_, reference: string) => {
      const found = lookup(reference.trim(), results);
      return typeof found === 'object' ? JSON.stringify(found) : String(found);
    });
  }
  if (Array.isArray(value)) return value.map((item) => resolveReferences(item, results));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolveReferences(item, results)]));
  }
  return value;
}

function lookup(reference: string, results: ReadonlyMap<string, unknown>): unknown {
  const [head = '', ...path] = reference.replace(/\[(\d+)\]/g, '.$1').split('.').filter((part) => part !== '');
  if (!results.has(head)) throw new UsageError(`\${${reference}}: no result of a step "${head}"`);
  let value: unknown = results.get(head);
  const walked = [head];
  for (const part of path) {
    if (value === null || typeof value !== 'object' || !(part in value)) {
      throw new UsageError(`\${${reference}}: ${walked.join('.')} has no "${part}"`);
    }
    value = (value as Record<string, unknown>)[part];
    walked.push(part);
  }
  if (value === undefined || value === null) throw new UsageError(`\${${reference}} is empty`);
  return value;
}

/** A request id for one call of one step: the same on every run of the same file. */
export function stepRequestId(scenario: Pick<Scenario, 'identity'>, step: string, call: string): string {
  const file = createHash('sha256').update(scenario.identity).digest('hex').slice(0, 16);
  return `payctl-scenario-${file}-${step}-${call}`;
}

function nodeStart(doc: Document, path: readonly (string | number)[]): number | undefined {
  // The deepest node that exists on the path: a missing key points at its parent.
  for (let depth = path.length; depth >= 0; depth -= 1) {
    const node = depth === 0 ? doc.contents : doc.getIn(path.slice(0, depth), true);
    if (isNode(node) && node.range) return node.range[0];
  }
  return undefined;
}

function fromZod(
  file: string,
  error: z.ZodError,
  base: readonly (string | number)[],
  lineOf: (path: readonly (string | number)[]) => number | undefined,
  prefix = '',
): ScenarioFileError {
  const [issue] = error.issues;
  const path = [...base, ...(issue?.path ?? []).map((part) => (typeof part === 'symbol' ? String(part) : part))];
  const field = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  return new ScenarioFileError(file, lineOf(path), `${prefix}${field}${issue?.message ?? 'invalid'}`);
}
