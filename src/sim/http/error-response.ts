import { errorBodies } from '../../upstream/contract/index.ts';
import type { SimError } from '../engine/sim-error.ts';

export interface ErrorResponse {
  status: number;
  body: unknown;
}

/** The documented body of each error kind (see the interface document's Errors section). */
export function errorResponse(error: SimError, requestId: string): ErrorResponse {
  switch (error.kind) {
    case 'validation':
      return { status: 400, body: errorBodies.validation(error.details) };
    case 'wrong_provider':
      return {
        status: 400,
        body: errorBodies.wrongProvider(error.message, error.details[0] ?? requestId),
      };
    case 'unauthorized':
      return { status: 401, body: errorBodies.wrongCredentials(error.message) };
    case 'forbidden':
      return { status: 403, body: errorBodies.forbidden(error.message) };
    case 'not_found':
      return { status: 404, body: errorBodies.notFound(error.message) };
    case 'conflict':
      return { status: 409, body: errorBodies.unsupportedAction(error.message) };
    case 'throttled':
      return { status: 429, body: errorBodies.throttled(error.message) };
    case 'internal':
      return {
        status: 500,
        body: errorBodies.internal(error.details.length > 0 ? error.details : ['internal_error']),
      };
  }
}

/** The error a forced (injected) status produces, with its documented body. */
export function errorKindOfStatus(status: number): SimError['kind'] {
  const kinds: Record<number, SimError['kind']> = {
    400: 'validation',
    401: 'unauthorized',
    403: 'forbidden',
    404: 'not_found',
    409: 'conflict',
    429: 'throttled',
  };
  return kinds[status] ?? 'internal';
}
