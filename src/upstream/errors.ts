import {
  forbiddenErrorBody,
  internalErrorBody,
  notFoundErrorBody,
  throttledErrorBody,
  unsupportedActionErrorBody,
  validationErrorBody,
  wrongCredentialsErrorBody,
  wrongProviderErrorBody,
} from './contract/index.ts';

export type UpstreamErrorCode =
  | 'validation'
  | 'wrong_provider'
  | 'wrong_credentials'
  | 'forbidden'
  | 'not_found'
  | 'unsupported_action'
  | 'throttled'
  | 'internal'
  | 'unexpected_status'
  | 'timeout'
  | 'network'
  | 'contract'
  | 'invalid_request';

interface UpstreamErrorInit {
  operationId: string;
  status?: number;
  body?: unknown;
  /** False when the body did not match the documented error shape for its status. */
  bodyMatchesContract?: boolean;
  cause?: unknown;
}

/**
 * Base of every error the client throws. `retryable` says whether the same request may succeed
 * later; messages never carry credentials.
 */
export abstract class UpstreamError extends Error {
  abstract readonly code: UpstreamErrorCode;
  abstract readonly retryable: boolean;
  readonly operationId: string;
  readonly status: number | undefined;
  /** The raw response body (parsed JSON, or text when it was not JSON). */
  readonly body: unknown;
  readonly bodyMatchesContract: boolean;

  constructor(message: string, init: UpstreamErrorInit) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.operationId = init.operationId;
    this.status = init.status;
    this.body = init.body;
    this.bodyMatchesContract = init.bodyMatchesContract ?? true;
  }
}

/** 400 with the list of violated rules. */
export class ValidationError extends UpstreamError {
  override readonly name = 'ValidationError';
  readonly code = 'validation' as const;
  readonly retryable = false;
  constructor(
    readonly messages: readonly string[],
    init: UpstreamErrorInit,
  ) {
    super(
      `${init.operationId}: the service rejected the request (400)${messages.length > 0 ? `: ${messages.join('; ')}` : ''}`,
      init,
    );
  }
}

/** 400 `wrong_provider`: unknown provider for the country and method of a delegated IRT. */
export class WrongProviderError extends UpstreamError {
  override readonly name = 'WrongProviderError';
  readonly code = 'wrong_provider' as const;
  readonly retryable = false;
  constructor(
    readonly requestId: string | undefined,
    readonly serviceMessage: string | undefined,
    init: UpstreamErrorInit,
  ) {
    super(
      `${init.operationId}: wrong provider${serviceMessage ? `: ${serviceMessage}` : ''}${requestId ? ` (request_id ${requestId})` : ''}`,
      init,
    );
  }
}

/** 401: the API key or merchant id is wrong. No retry can fix it. */
export class WrongCredentialsError extends UpstreamError {
  override readonly name = 'WrongCredentialsError';
  readonly code = 'wrong_credentials' as const;
  readonly retryable = false;
  constructor(init: UpstreamErrorInit) {
    super(
      `${init.operationId}: the service refused the credentials (401 wrong_credentials); check PAYSYNC_API_KEY, PAYSYNC_MERCHANT_ID and PAYSYNC_ENVIRONMENT`,
      init,
    );
  }
}

export class ForbiddenError extends UpstreamError {
  override readonly name = 'ForbiddenError';
  readonly code = 'forbidden' as const;
  readonly retryable = false;
  constructor(init: UpstreamErrorInit) {
    super(`${init.operationId}: forbidden (403)`, init);
  }
}

export class NotFoundError extends UpstreamError {
  override readonly name = 'NotFoundError';
  readonly code = 'not_found' as const;
  readonly retryable = false;
  constructor(
    readonly serviceMessage: string | undefined,
    init: UpstreamErrorInit,
  ) {
    super(
      `${init.operationId}: not found (404)${serviceMessage ? `: ${serviceMessage}` : ''}`,
      init,
    );
  }
}

/** 409 `unsupported_action`, e.g. a receipt asked for before settlement. */
export class UnsupportedActionError extends UpstreamError {
  override readonly name = 'UnsupportedActionError';
  readonly code = 'unsupported_action' as const;
  readonly retryable = false;
  constructor(
    readonly serviceMessage: string | undefined,
    init: UpstreamErrorInit,
  ) {
    super(
      `${init.operationId}: unsupported action (409)${serviceMessage ? `: ${serviceMessage}` : ''}`,
      init,
    );
  }
}

/** 429. `retryAfterMs` comes from the `Retry-After` header when the service sends one. */
export class ThrottledError extends UpstreamError {
  override readonly name = 'ThrottledError';
  readonly code = 'throttled' as const;
  readonly retryable = true;
  constructor(
    readonly retryAfterMs: number | undefined,
    init: UpstreamErrorInit,
  ) {
    super(
      `${init.operationId}: throttled by the service (429)${retryAfterMs !== undefined ? `, retry after ${retryAfterMs} ms` : ''}`,
      init,
    );
  }
}

/** 500 (and any other 5xx), with the codes of the body when it has them. */
export class InternalServiceError extends UpstreamError {
  override readonly name = 'InternalServiceError';
  readonly code = 'internal' as const;
  readonly retryable = true;
  constructor(
    readonly codes: readonly string[],
    init: UpstreamErrorInit,
  ) {
    super(
      `${init.operationId}: service error (${init.status ?? 500})${codes.length > 0 ? `: ${codes.join(', ')}` : ''}`,
      init,
    );
  }
}

/** A status the interface document does not describe (for example 405 or 422). */
export class UnexpectedStatusError extends UpstreamError {
  override readonly name = 'UnexpectedStatusError';
  readonly code = 'unexpected_status' as const;
  readonly retryable = false;
  constructor(init: UpstreamErrorInit) {
    super(`${init.operationId}: unexpected status ${init.status ?? '?'}`, init);
  }
}

/**
 * No answer within the per-request timeout. Retryable for reads; for a write the outcome is
 * unknown, so the caller must look the resource up before trying again.
 */
export class TimeoutError extends UpstreamError {
  override readonly name = 'TimeoutError';
  readonly code = 'timeout' as const;
  readonly retryable = true;
  constructor(
    readonly timeoutMs: number,
    init: UpstreamErrorInit,
  ) {
    super(`${init.operationId}: no response within ${timeoutMs} ms`, init);
  }
}

/** The connection failed (refused, reset, DNS). */
export class NetworkError extends UpstreamError {
  override readonly name = 'NetworkError';
  readonly code = 'network' as const;
  readonly retryable = true;
  constructor(detail: string, init: UpstreamErrorInit) {
    super(`${init.operationId}: network error: ${detail}`, init);
  }
}

export interface ContractIssue {
  /** Dotted path into the body, e.g. `[3].fees[0].amount`; `(body)` for the whole body. */
  readonly path: string;
  readonly message: string;
}

/**
 * The service answered 2xx with a body that breaks its own documented contract. Nothing from
 * such a body is used; the raw body is kept for diagnosis.
 */
export class ContractError extends UpstreamError {
  override readonly name = 'ContractError';
  readonly code = 'contract' as const;
  readonly retryable = false;
  readonly issues: readonly ContractIssue[];
  constructor(issues: readonly ContractIssue[], init: UpstreamErrorInit) {
    const shown = issues
      .slice(0, 3)
      .map((issue) => `${issue.path}: ${issue.message}`)
      .join('; ');
    const more = issues.length > 3 ? ` (+${issues.length - 3} more)` : '';
    super(`${init.operationId}: response breaks the contract at ${shown}${more}`, init);
    this.issues = issues;
  }

  /** The failing field paths. */
  get paths(): string[] {
    return this.issues.map((issue) => issue.path);
  }
}

/** Our own request failed local validation; nothing was sent. */
export class InvalidRequestError extends UpstreamError {
  override readonly name = 'InvalidRequestError';
  readonly code = 'invalid_request' as const;
  readonly retryable = false;
  constructor(
    readonly issues: readonly ContractIssue[],
    init: UpstreamErrorInit,
  ) {
    super(
      `${init.operationId}: invalid request, nothing sent: ${issues
        .map((issue) => `${issue.path}: ${issue.message}`)
        .join('; ')}`,
      init,
    );
  }
}

/** `[0].fees[1].amount` from zod's path array. */
export function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(body)';
  return path
    .map((segment, index) =>
      typeof segment === 'number' ? `[${segment}]` : `${index === 0 ? '' : '.'}${String(segment)}`,
    )
    .join('');
}

/** `Retry-After` as delta-seconds or an HTTP date, in milliseconds from `now` (epoch ms). */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export interface ErrorResponse {
  readonly operationId: string;
  readonly status: number;
  readonly body: unknown;
  readonly retryAfter?: string | null;
  /** When the answer came, by the client's clock (epoch ms): an HTTP-date `Retry-After` is read against it. */
  readonly receivedAtMs: number;
}

/**
 * The one place a non-2xx answer becomes a typed error. The class follows the status; the
 * body only adds detail, so a body that misses its documented shape still gives the right class.
 */
export function errorFromResponse(response: ErrorResponse): UpstreamError {
  const { operationId, status, body } = response;
  const init = (matches: boolean): UpstreamErrorInit => ({
    operationId,
    status,
    body,
    bodyMatchesContract: matches,
  });
  switch (status) {
    case 400: {
      const wrongProvider = wrongProviderErrorBody.safeParse(body);
      if (wrongProvider.success && wrongProvider.data.code === 'wrong_provider') {
        return new WrongProviderError(
          wrongProvider.data.request_id,
          wrongProvider.data.message,
          init(true),
        );
      }
      const validation = validationErrorBody.safeParse(body);
      if (validation.success) return new ValidationError(validation.data.error.message, init(true));
      return new ValidationError(looseMessages(body), init(false));
    }
    case 401:
      return new WrongCredentialsError(init(wrongCredentialsErrorBody.safeParse(body).success));
    case 403:
      return new ForbiddenError(init(forbiddenErrorBody.safeParse(body).success));
    case 404: {
      const parsed = notFoundErrorBody.safeParse(body);
      return new NotFoundError(
        parsed.success ? parsed.data.message : undefined,
        init(parsed.success),
      );
    }
    case 409: {
      const parsed = unsupportedActionErrorBody.safeParse(body);
      return new UnsupportedActionError(
        parsed.success ? parsed.data.message : undefined,
        init(parsed.success),
      );
    }
    case 429:
      return new ThrottledError(
        parseRetryAfter(response.retryAfter ?? null, response.receivedAtMs),
        init(throttledErrorBody.safeParse(body).success),
      );
    default: {
      if (status >= 500) {
        const parsed = internalErrorBody.safeParse(body);
        return new InternalServiceError(
          parsed.success ? parsed.data.code : [],
          init(parsed.success),
        );
      }
      return new UnexpectedStatusError(init(false));
    }
  }
}

function looseMessages(body: unknown): string[] {
  if (typeof body !== 'object' || body === null) return [];
  const candidates = [
    (body as { message?: unknown }).message,
    (body as { error?: { message?: unknown } }).error?.message,
  ];
  for (const candidate of candidates) {
    if (typeof candidate === 'string') return [candidate];
    if (Array.isArray(candidate))
      return candidate.filter((m): m is string => typeof m === 'string');
  }
  return [];
}
