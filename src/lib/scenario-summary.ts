// The one id worth showing for each step's result (the table of `payctl sandbox seed` and serve --seed).

import type { StepResult } from './scenario-runner.js';

export function keyIdOf(step: Pick<StepResult, 'kind' | 'result'>): string {
  const result = (step.result ?? {}) as Record<string, unknown>;
  const pick = (...keys: string[]) => keys.map((key) => result[key]).find((value) => typeof value === 'string') as string | undefined;
  switch (step.kind) {
    case 'account':
      return pick('payer_id') ?? '';
    case 'consent':
      return `${pick('platform_client_id') ?? ''} -> ${pick('payer_id') ?? ''}`;
    case 'dispute':
      return pick('dispute_id') ?? '';
    case 'payout':
      return ((result.batch_header as Record<string, unknown> | undefined)?.payout_batch_id as string | undefined) ?? '';
    case 'clock':
      return pick('now') ?? '';
    case 'top_up':
      return '';
    default:
      return pick('id') ?? '';
  }
}
