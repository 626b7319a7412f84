import { DEFAULT_PAGE, DEFAULT_PER_PAGE, defaultFrom } from './contract/index.ts';
import type { ContractIssue } from './errors.ts';

/** Query parameters that carry datetimes: sent as ISO 8601 UTC with milliseconds. */
const DATE_PARAMS = new Set([
  'from',
  'to',
  'date',
  'fromCreatedAt',
  'toCreatedAt',
  'fromExpirationDate',
  'toExpirationDate',
]);

export type QueryValue =
  string | number | boolean | Date | readonly (string | number)[] | undefined;

/** `Date` or any string `Date` can read → `2024-05-01T12:00:00.000Z`; `undefined` if unreadable. */
export function toIsoUtc(value: Date | string): string | undefined {
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/**
 * Serialises a typed query: arrays as repeated parameters (`accountType=a&accountType=b`),
 * booleans as `true`/`false`, dates as ISO 8601 UTC with milliseconds. Returns the issues
 * instead of throwing so the caller can attach its operation.
 */
export function serializeQuery(params: Readonly<Record<string, QueryValue>>): {
  search: URLSearchParams;
  issues: ContractIssue[];
} {
  const search = new URLSearchParams();
  const issues: ContractIssue[] = [];
  for (const key of Object.keys(params).sort()) {
    const value = params[key];
    if (value === undefined) continue;
    if (DATE_PARAMS.has(key)) {
      const iso = value instanceof Date || typeof value === 'string' ? toIsoUtc(value) : undefined;
      if (iso === undefined)
        issues.push({ path: key, message: 'must be a date or ISO 8601 datetime' });
      else search.append(key, iso);
    } else if (Array.isArray(value)) {
      for (const item of value) search.append(key, String(item));
    } else if (value instanceof Date) {
      search.append(key, value.toISOString());
    } else {
      search.append(key, String(value));
    }
  }
  return { search, issues };
}

export interface ListWindowInput {
  from?: Date | string;
  to?: Date | string;
  page?: number;
  perPage?: number;
}

/**
 * The documented defaults of the list window, made explicit so a request never depends on the
 * service's idea of "now": `from` first day of the month (UTC), `to` now, page 1, 10 per page.
 */
export function withListDefaults<T extends ListWindowInput>(
  query: T,
  now: Date,
): T & Required<ListWindowInput> {
  return {
    ...query,
    from: query.from ?? defaultFrom(now),
    to: query.to ?? now,
    page: query.page ?? DEFAULT_PAGE,
    perPage: query.perPage ?? DEFAULT_PER_PAGE,
  };
}
