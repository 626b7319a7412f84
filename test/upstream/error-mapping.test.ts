import { describe, expect, it, test } from 'vitest';
import {
  ContractError,
  ForbiddenError,
  InternalServiceError,
  NotFoundError,
  ThrottledError,
  UnexpectedStatusError,
  UnsupportedActionError,
  ValidationError,
  WrongCredentialsError,
  WrongProviderError,
  errorBodies,
  errorFromResponse,
  parseRetryAfter,
} from '../../src/upstream/index.ts';

const operationId = 'listTransfers';

describe('errorFromResponse', () => {
  test.each([
    {
      status: 400,
      body: errorBodies.validation(['page must be ≥ 1']),
      cls: ValidationError,
      retryable: false,
    },
    {
      status: 400,
      body: errorBodies.wrongProvider('no such provider', 'req_9'),
      cls: WrongProviderError,
      retryable: false,
    },
    {
      status: 401,
      body: errorBodies.wrongCredentials('Identifiants invalides'),
      cls: WrongCredentialsError,
      retryable: false,
    },
    { status: 403, body: errorBodies.forbidden(), cls: ForbiddenError, retryable: false },
    {
      status: 404,
      body: errorBodies.notFound('Transfer tr_1 not found'),
      cls: NotFoundError,
      retryable: false,
    },
    {
      status: 409,
      body: errorBodies.unsupportedAction('not settled yet'),
      cls: UnsupportedActionError,
      retryable: false,
    },
    { status: 429, body: errorBodies.throttled(), cls: ThrottledError, retryable: true },
    {
      status: 500,
      body: errorBodies.internal(['internal_error', 'not_granted']),
      cls: InternalServiceError,
      retryable: true,
    },
  ])('$status $cls.name from the documented body', ({ status, body, cls, retryable }) => {
    const error = errorFromResponse({ operationId, status, body, receivedAtMs: Date.now() });
    expect(error).toBeInstanceOf(cls);
    expect(error.retryable).toBe(retryable);
    expect(error.status).toBe(status);
    expect(error.operationId).toBe(operationId);
    expect(error.bodyMatchesContract).toBe(true);
    expect(error.body).toEqual(body);
  });

  it('carries the details of each documented shape', () => {
    const validation = errorFromResponse({
      operationId,
      status: 400,
      receivedAtMs: Date.now(),
      body: errorBodies.validation(['a is bad', 'b is bad']),
    }) as ValidationError;
    expect(validation.messages).toEqual(['a is bad', 'b is bad']);
    expect(validation.message).toContain('a is bad; b is bad');

    const wrongProvider = errorFromResponse({
      operationId,
      status: 400,
      receivedAtMs: Date.now(),
      body: errorBodies.wrongProvider('unknown provider', 'req_42'),
    }) as WrongProviderError;
    expect(wrongProvider.requestId).toBe('req_42');

    const internal = errorFromResponse({
      operationId,
      status: 500,
      receivedAtMs: Date.now(),
      body: errorBodies.internal(['live_mode_not_granted']),
    }) as InternalServiceError;
    expect(internal.codes).toEqual(['live_mode_not_granted']);

    const throttled = errorFromResponse({
      operationId,
      status: 429,
      receivedAtMs: Date.now(),
      body: errorBodies.throttled(),
      retryAfter: '2',
    }) as ThrottledError;
    expect(throttled.retryAfterMs).toBe(2000);
  });

  test.each([
    { status: 400, cls: ValidationError },
    { status: 401, cls: WrongCredentialsError },
    { status: 403, cls: ForbiddenError },
    { status: 404, cls: NotFoundError },
    { status: 409, cls: UnsupportedActionError },
    { status: 429, cls: ThrottledError },
    { status: 500, cls: InternalServiceError },
    { status: 503, cls: InternalServiceError },
    { status: 418, cls: UnexpectedStatusError },
  ])('a $status with an undocumented body is still a $cls.name', ({ status, cls }) => {
    const error = errorFromResponse({
      operationId,
      status,
      body: '<html>oops</html>',
      receivedAtMs: Date.now(),
    });
    expect(error).toBeInstanceOf(cls);
    expect(error.bodyMatchesContract).toBe(false);
    expect(error.body).toBe('<html>oops</html>');
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2024-05-01T00:00:00.000Z');
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter('Wed, 01 May 2024 00:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
  });

  it('names every failing field of a contract break', () => {
    const error = new ContractError(
      [
        { path: '[0].amount', message: 'Too small' },
        { path: '[2].status', message: 'Invalid option' },
      ],
      { operationId, status: 200, body: [] },
    );
    expect(error.paths).toEqual(['[0].amount', '[2].status']);
    expect(error.message).toContain('[0].amount');
    expect(error.retryable).toBe(false);
  });
});
