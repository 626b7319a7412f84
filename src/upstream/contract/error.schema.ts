import { z } from 'zod';

/** Error bodies, exactly as the Errors section of the interface document shows them. */

export const validationErrorBody = z
  .looseObject({
    status: z.number(),
    error: z.looseObject({
      statusCode: z.number(),
      message: z.array(z.string()),
      error: z.string(),
    }),
  })
  .meta({
    id: 'ValidationError',
    example: {
      status: 400,
      error: {
        statusCode: 400,
        message: ['amount must be a positive integer'],
        error: 'Bad Request',
      },
    },
  });
export type ValidationErrorBody = z.infer<typeof validationErrorBody>;

export const wrongProviderErrorBody = z
  .looseObject({
    status: z.number(),
    code: z.string(),
    message: z.string(),
    request_id: z.string(),
  })
  .meta({ id: 'WrongProviderError' });
export type WrongProviderErrorBody = z.infer<typeof wrongProviderErrorBody>;

export const wrongCredentialsErrorBody = z
  .looseObject({
    status: z.number(),
    error: z.looseObject({
      type: z.literal('authorization_error'),
      code: z.literal('wrong_credentials'),
      message: z.string(),
    }),
  })
  .meta({ id: 'WrongCredentialsError' });
export type WrongCredentialsErrorBody = z.infer<typeof wrongCredentialsErrorBody>;

export const forbiddenErrorBody = z
  .looseObject({
    status: z.number(),
    error: z.looseObject({
      statusCode: z.literal(403),
      message: z.string(),
      error: z.string(),
    }),
  })
  .meta({ id: 'ForbiddenError' });
export type ForbiddenErrorBody = z.infer<typeof forbiddenErrorBody>;

export const notFoundErrorBody = z
  .looseObject({
    httpStatus: z.literal(404),
    message: z.string(),
    error: z.string(),
  })
  .meta({ id: 'NotFoundError' });
export type NotFoundErrorBody = z.infer<typeof notFoundErrorBody>;

export const unsupportedActionErrorBody = z
  .looseObject({
    httpStatus: z.literal(409),
    type: z.literal('invalid_request'),
    code: z.literal('unsupported_action'),
    message: z.string(),
  })
  .meta({ id: 'UnsupportedActionError' });
export type UnsupportedActionErrorBody = z.infer<typeof unsupportedActionErrorBody>;

export const throttledErrorBody = z
  .looseObject({
    status: z.literal(429),
    error: z.string(),
  })
  .meta({ id: 'ThrottledError' });
export type ThrottledErrorBody = z.infer<typeof throttledErrorBody>;

/** Codes the document lists for 500 bodies; the schema accepts any string so new ones pass. */
export const INTERNAL_ERROR_CODES = [
  'internal_error',
  'wrong_credentials',
  'not_granted',
  'live_mode_not_granted',
  'invalid_sandbox_msisdn',
  'invalid_url',
  'carrier_invalid_url',
  'wrong_provider',
  'override_business_name',
  'do_not_override_business_name',
] as const;
export type InternalErrorCode = (typeof INTERNAL_ERROR_CODES)[number];

export const internalErrorBody = z
  .looseObject({
    type: z.literal('internal_error'),
    code: z.array(z.string()),
    message: z.string(),
  })
  .meta({ id: 'InternalError' });
export type InternalErrorBody = z.infer<typeof internalErrorBody>;

/** Every documented error shape, by kind. A kind fixes its HTTP status. */
export const errorKinds = {
  validation: { status: 400, body: validationErrorBody },
  wrong_provider: { status: 400, body: wrongProviderErrorBody },
  wrong_credentials: { status: 401, body: wrongCredentialsErrorBody },
  forbidden: { status: 403, body: forbiddenErrorBody },
  not_found: { status: 404, body: notFoundErrorBody },
  unsupported_action: { status: 409, body: unsupportedActionErrorBody },
  throttled: { status: 429, body: throttledErrorBody },
  internal: { status: 500, body: internalErrorBody },
} as const;
export type ErrorKind = keyof typeof errorKinds;
