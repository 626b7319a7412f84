import { isDatabaseUnavailable } from '../db/index.ts';
import { reasonOf } from '../error-reason.ts';

/**
 * `Retry-After` of a request whose database is down or refuses writes: the receiver's for the
 * same failure (its `inbox_unavailable`), short because nothing paysync does waits on a retry
 * loop: the next request that reaches the database answers.
 */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** What the ops API and the dashboard answer, with 503 and `Retry-After`, when the books' database fails. */
export interface DatabaseUnavailableAnswer {
  /** `tenant_unavailable` in a process serving several tenants (as for a paused tenant). */
  readonly code: 'tenant_unavailable' | 'database_unavailable';
  readonly message: string;
}

/**
 * The answer to a request that failed because its database is unavailable (connection refused
 * or terminated, SQLITE_CANTOPEN, SQLITE_IOERR, a full or read-only disk: isDatabaseUnavailable),
 * or undefined for any other failure (a 500). The operator's problem, not the request's: the
 * same request succeeds once the database answers, and the other tenants of the process never
 * noticed (docs/tenants.md, "A tenant whose database fails while running").
 */
export function databaseUnavailableAnswer(
  error: unknown,
  tenant: string | undefined,
): DatabaseUnavailableAnswer | undefined {
  if (!isDatabaseUnavailable(error)) return undefined;
  const reason = reasonOf(error);
  return tenant === undefined
    ? {
        code: 'database_unavailable',
        message: `the database is unavailable (${reason}); retry later`,
      }
    : {
        code: 'tenant_unavailable',
        message: `tenant ${tenant} cannot use its database (${reason}); retry later`,
      };
}
