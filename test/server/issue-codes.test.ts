// Issue codes are a typed list in the error catalogue: serviceError takes only a listed code.

import { describe, expect, it } from 'vitest';
import { ISSUE_CODES, ServiceError, serviceError } from '../../src/server/http/errors.js';

describe('issue codes', () => {
  it('are listed once each, in the API spelling', () => {
    expect(new Set(ISSUE_CODES).size).toBe(ISSUE_CODES.length);
    for (const code of ISSUE_CODES) expect(code).toMatch(/^[A-Z][A-Z0-9_]+$/);
  });

  it('a listed code makes an error detail; an unknown one fails the type check', () => {
    const listed = serviceError('UNPROCESSABLE_ENTITY', 'CAPTURE_FULLY_REFUNDED', 'Already refunded.');
    expect(listed).toBeInstanceOf(ServiceError);
    expect(listed.details[0]?.issue).toBe('CAPTURE_FULLY_REFUNDED');
    // @ts-expect-error: not in ISSUE_CODES (npm run typecheck fails if this line ever type-checks)
    const unknown = serviceError('UNPROCESSABLE_ENTITY', 'CAPTURE_FULLY_REFUNDEDD', 'A misspelt code.');
    expect(unknown.details[0]?.issue).toBe('CAPTURE_FULLY_REFUNDEDD');
  });
});
