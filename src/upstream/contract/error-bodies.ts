import type {
  ForbiddenErrorBody,
  InternalErrorBody,
  NotFoundErrorBody,
  ThrottledErrorBody,
  UnsupportedActionErrorBody,
  ValidationErrorBody,
  WrongCredentialsErrorBody,
  WrongProviderErrorBody,
} from './error.schema.ts';

/**
 * Builders of the documented error bodies, so the simulator and the tests produce exactly the
 * shapes the client parses.
 */
export const errorBodies = {
  validation: (messages: readonly string[]): ValidationErrorBody => ({
    status: 400,
    error: { statusCode: 400, message: [...messages], error: 'Bad Request' },
  }),
  wrongProvider: (message: string, requestId: string): WrongProviderErrorBody => ({
    status: 400,
    code: 'wrong_provider',
    message,
    request_id: requestId,
  }),
  wrongCredentials: (message = 'Wrong credentials'): WrongCredentialsErrorBody => ({
    status: 401,
    error: { type: 'authorization_error', code: 'wrong_credentials', message },
  }),
  forbidden: (error = 'Forbidden'): ForbiddenErrorBody => ({
    status: 403,
    error: { statusCode: 403, message: 'Forbidden', error },
  }),
  notFound: (message: string): NotFoundErrorBody => ({
    httpStatus: 404,
    message,
    error: 'Not found',
  }),
  unsupportedAction: (message: string): UnsupportedActionErrorBody => ({
    httpStatus: 409,
    type: 'invalid_request',
    code: 'unsupported_action',
    message,
  }),
  throttled: (error = 'ThrottlerException: Too Many Requests'): ThrottledErrorBody => ({
    status: 429,
    error,
  }),
  internal: (codes: readonly string[] = ['internal_error']): InternalErrorBody => ({
    type: 'internal_error',
    code: [...codes],
    message: 'Internal server error',
  }),
} as const;
