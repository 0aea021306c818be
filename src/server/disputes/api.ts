// The disputes domain as the other domains see it: one interface, built once in domains.ts and
// reached through `ctx.deps.domains.disputes` (payments asks it before a partial refund).

import type { ServiceContext } from '../core/deps.js';
import * as store from './store.js';

export interface DisputesApi {
  /** Whether the capture has a dispute that is not resolved (it then takes only a full refund). */
  isCaptureDisputed(ctx: ServiceContext, captureId: string): Promise<boolean>;
}

export function createDisputesApi(): DisputesApi {
  return {
    isCaptureDisputed: (ctx, captureId) => store.captureIsDisputed(ctx.db, ctx.accountId, captureId),
  };
}
