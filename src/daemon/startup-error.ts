/** The daemon refuses to start: one line saying why and what to do. */
export class StartupError extends Error {
  override readonly name = 'StartupError';
  readonly code = 'startup_refused' as const;
}

interface ListenFailure {
  readonly code: string;
  readonly syscall: 'listen';
  readonly address?: string;
  readonly port?: number;
}

function isListenFailure(error: unknown): error is ListenFailure {
  const candidate = error as Partial<ListenFailure> | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    candidate.syscall === 'listen' &&
    typeof candidate.code === 'string'
  );
}

const LISTEN_REASONS: Readonly<Record<string, string>> = {
  EADDRINUSE: 'is already in use',
  EACCES: 'needs privileges this process does not have',
  EADDRNOTAVAIL: 'is on an address this machine does not have',
};

/**
 * The {@link StartupError} an operator should read for a failure of the start-up itself, such
 * as the receiver's port being taken, or undefined for anything else. Node's own message
 * ("listen EADDRINUSE: address already in use 0.0.0.0:8080") names neither the variable nor
 * the fix.
 */
export function startupErrorFrom(error: unknown): StartupError | undefined {
  if (error instanceof StartupError) return error;
  if (!isListenFailure(error)) return undefined;
  const where = `port ${error.port ?? '?'} on ${error.address ?? 'this machine'}`;
  const why = LISTEN_REASONS[error.code] ?? `cannot be listened on (${error.code})`;
  return new StartupError(
    `${where} ${why} → stop what holds it, or set PAYSYNC_PORT to a free port`,
  );
}
