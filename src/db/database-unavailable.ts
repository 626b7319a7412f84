/**
 * SQLite result codes (better-sqlite3's `code`, extended codes included, e.g. `SQLITE_IOERR_WRITE`)
 * of a database that cannot be opened, read or written right now: the file or its disk, not the
 * statement, is at fault.
 */
const SQLITE_UNAVAILABLE = /^SQLITE_(CANTOPEN|IOERR|FULL|READONLY|BUSY|LOCKED|PROTOCOL)(_|$)/;

/**
 * PostgreSQL SQLSTATEs of a server that cannot serve: connection exceptions (08), insufficient
 * resources such as a full disk (53), operator intervention such as a shutdown or a terminated
 * backend (57P), a read-only transaction (25006).
 */
const POSTGRES_UNAVAILABLE = /^(08...|53...|57P0[1-4]|25006)$/;

/** The socket errors of a server that is not there, or went away. */
const SOCKET_UNAVAILABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/** node-postgres words these without a code. */
const PG_CONNECTION_LOST =
  /^(Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect|Client was closed and is not queryable)/;

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Whether `error` says the database is unavailable (down, unreachable, or unable to take
 * writes) rather than that a request was wrong: the answer is then 503 with Retry-After, not
 * 500. Looks through `cause` and an AggregateError's `errors` (a refused connection on IPv4 and
 * IPv6).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  return unavailableAt(error, 0);
}

function unavailableAt(error: unknown, depth: number): boolean {
  if (error === null || error === undefined || depth > 5) return false;
  const code = codeOf(error);
  if (code !== undefined) {
    if (SQLITE_UNAVAILABLE.test(code) || POSTGRES_UNAVAILABLE.test(code)) return true;
    if (SOCKET_UNAVAILABLE.has(code)) return true;
  }
  if (error instanceof Error && PG_CONNECTION_LOST.test(error.message)) return true;
  const inner = (error as { errors?: unknown }).errors;
  if (Array.isArray(inner) && inner.some((e) => unavailableAt(e, depth + 1))) return true;
  return unavailableAt((error as { cause?: unknown }).cause, depth + 1);
}
