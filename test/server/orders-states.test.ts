// The tracker's status table: every status can be cancelled, CANCELLED is final, storage holds only API statuses.

import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../src/server/http/errors.js';
import { TRACKER_STATUSES, TRACKER_TRANSITIONS, assertTrackerCanChange, trackerStatusOf } from '../../src/server/orders/states.js';

describe('tracker states', () => {
  it.each(TRACKER_STATUSES.filter((status) => status !== 'CANCELLED'))('%s can change, and only to CANCELLED', (status) => {
    expect(TRACKER_TRANSITIONS[status]).toEqual(['CANCELLED']);
    expect(() => assertTrackerCanChange('T-1', status)).not.toThrow();
  });

  it('CANCELLED is final: 422 NOT_PATCHABLE naming the tracker in the path', () => {
    expect(TRACKER_TRANSITIONS.CANCELLED).toEqual([]);
    let thrown: unknown;
    try {
      assertTrackerCanChange('T-1', 'CANCELLED');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ServiceError);
    expect((thrown as ServiceError).details[0]).toMatchObject({ issue: 'NOT_PATCHABLE', field: 'tracker_id', value: 'T-1', location: 'path' });
  });

  it('a stored status outside the table is refused', () => {
    expect(trackerStatusOf('SHIPPED')).toBe('SHIPPED');
    expect(() => trackerStatusOf('LOST')).toThrow('unknown tracker status in storage: LOST');
  });
});
