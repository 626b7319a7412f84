import type { Response } from 'express';
import type { z } from 'zod';

/** The one error shape of the ops API: `{ error: { code, message } }`. */
export function sendOpsError(
  response: Response,
  status: number,
  code: string,
  message: string,
): void {
  response.status(status).json({ error: { code, message } });
}

/**
 * The API's and the metrics' answer to a client address past its failed authentications
 * (AuthThrottle sets `Retry-After`): one wording for every JSON surface.
 */
export function sendTooManyFailures(response: Response): void {
  sendOpsError(response, 429, 'too_many_failures', 'too many failed authentications; retry later');
}

/** A request part that failed its schema: 400 naming the parameter. */
export class BadParameterError extends Error {
  constructor(
    readonly parameter: string,
    detail: string,
  ) {
    super(`${parameter}: ${detail}`);
    this.name = 'BadParameterError';
  }
}

/** Parses one part of the request; throws BadParameterError naming the first bad field. */
export function parseParameters<T extends z.ZodType>(
  schema: T,
  value: unknown,
  part: 'query' | 'path' | 'body',
): z.output<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const name = issue?.path.length ? issue.path.join('.') : part;
  const detail =
    issue?.code === 'unrecognized_keys'
      ? `unknown field(s) ${issue.keys.join(', ')}`
      : (issue?.message ?? 'invalid');
  throw new BadParameterError(String(name), detail);
}

/** Query parameters the route does not know are refused too, naming them. */
export function refuseUnknownQuery(query: Record<string, unknown>, known: readonly string[]): void {
  for (const name of Object.keys(query)) {
    if (!known.includes(name)) throw new BadParameterError(name, 'unknown query parameter');
    if (Array.isArray(query[name])) throw new BadParameterError(name, 'given more than once');
  }
}
