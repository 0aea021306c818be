// Fault rules as the CLI shows and takes them (payctl sandbox faults, and scenario files' fault steps).

import type { FaultResponse, FaultRule } from './api/sandbox.js';
import type { DetailRow } from './render/format.js';

/** 500ms, 3s, 2m, or a bare number of milliseconds. */
export function parseDelayMs(text: string): number {
  const match = /^(\d+)(ms|s|m)?$/.exec(text.trim().toLowerCase());
  if (!match) throw new Error(`"${text}" is not a delay: use a number and ms, s or m, e.g. 500ms, 3s`);
  const amount = Number.parseInt(match[1] as string, 10);
  const ms = match[2] === 's' ? amount * 1000 : match[2] === 'm' ? amount * 60_000 : amount;
  if (!Number.isSafeInteger(ms)) throw new Error(`"${text}" is too long a delay`);
  return ms;
}

/** What a rule answers, in a few words: "500", "429, Retry-After 5", "UNPROCESSABLE_ENTITY:INSTRUMENT_DECLINED". */
export function describeRespond(respond: Record<string, unknown> | FaultResponse): string {
  const value = respond as Record<string, unknown>;
  if (value.drop) return 'drop the connection';
  if (typeof value.delay_ms === 'number') return `delay ${value.delay_ms} ms`;
  if (typeof value.name === 'string') return `${value.name}:${String(value.issue ?? '')}`;
  if (typeof value.status === 'number') return value.retry_after === undefined ? String(value.status) : `${value.status}, Retry-After ${String(value.retry_after)}`;
  return JSON.stringify(value);
}

export function timesText(rule: FaultRule): string {
  return rule.times === null || rule.times === undefined ? 'every time' : `${rule.times}`;
}

export function faultRows(rule: FaultRule): DetailRow[] {
  return [
    ['ID', rule.id],
    ['Matches', `${rule.method} ${rule.path}`],
    ['After', String(rule.after ?? 0)],
    ['Times', timesText(rule)],
    ['Answer', describeRespond(rule.respond)],
    ['Matched', String(rule.matched ?? 0)],
    ['Fired', String(rule.fired ?? 0)],
  ];
}
