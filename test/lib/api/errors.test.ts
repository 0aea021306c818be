import { describe, expect, it } from 'vitest';
import { ApiError, InterruptedError, NetworkError, TimeoutError, UsageError, errorReportFor, exitCodeFor } from '../../../src/lib/api/errors.js';

describe('exitCodeFor', () => {
  const api = (status: number, name = 'X') => new ApiError({ status, body: { name, message: 'm' } });
  const cases: Array<[string, unknown, number]> = [
    ['400', api(400, 'INVALID_REQUEST'), 2],
    ['VALIDATION_ERROR', api(400, 'VALIDATION_ERROR'), 2],
    ['415', api(415, 'UNSUPPORTED_MEDIA_TYPE'), 2],
    ['401', api(401, 'AUTHENTICATION_FAILURE'), 4],
    ['403', api(403, 'NOT_AUTHORIZED'), 4],
    ['oauth 401', new ApiError({ status: 401, body: { error: 'invalid_client', error_description: 'bad' } }), 4],
    ['404', api(404, 'RESOURCE_NOT_FOUND'), 3],
    ['409', api(409, 'RESOURCE_CONFLICT'), 5],
    ['422', api(422, 'UNPROCESSABLE_ENTITY'), 5],
    ['429', api(429, 'RATE_LIMIT_REACHED'), 6],
    ['500', api(500, 'INTERNAL_SERVER_ERROR'), 6],
    ['503 html', new ApiError({ status: 503, body: '<html>down</html>' }), 6],
    ['network', new NetworkError('refused'), 6],
    ['timeout', new TimeoutError('slow'), 8],
    ['usage', new UsageError('missing --x'), 2],
    ['interrupted', new InterruptedError(), 130],
    ['prompt ctrl+c', Object.assign(new Error('closed'), { name: 'ExitPromptError' }), 130],
    ['oclif parse error', Object.assign(new Error('Nonexistent flag'), { oclif: { exit: 2 } }), 2],
    ['plain error', new Error('bug'), 1],
    ['not an error', 'weird', 1],
  ];
  it.each(cases)('%s -> %d', (_label, error, code) => expect(exitCodeFor(error)).toBe(code));

  it('keeps the service error body and names a non-JSON answer by its status', () => {
    const error = new ApiError({ status: 422, body: { name: 'UNPROCESSABLE_ENTITY', message: 'no', debug_id: 'd', details: [{ issue: 'I' }] }, requestId: 'r1' });
    expect(error.report()).toMatchObject({ name: 'UNPROCESSABLE_ENTITY', debug_id: 'd', details: [{ issue: 'I' }], status: 422, request_id: 'r1' });
    expect(new ApiError({ status: 502, body: '' }).errorName).toBe('HTTP_502');
  });
});

describe('errorReportFor', () => {
  it('says Ctrl+C at a prompt in our words, not the prompt library\'s', () => {
    const closed = Object.assign(new Error('User force closed the prompt with SIGINT'), { name: 'ExitPromptError' });
    expect(errorReportFor(closed)).toEqual({ name: 'INTERRUPTED', message: 'interrupted (Ctrl+C) at the prompt' });
    expect(errorReportFor(new Error('bug'))).toEqual({ name: 'UNEXPECTED_ERROR', message: 'bug' });
  });
});
