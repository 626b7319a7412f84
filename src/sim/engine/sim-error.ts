export type SimErrorKind =
  | 'validation'
  | 'wrong_provider'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'throttled'
  | 'internal';

/**
 * A failure the simulator answers with one of the documented error bodies. The engine and the
 * handlers throw it; the HTTP layer turns it into the body of its status (see error-bodies.ts).
 */
export class SimError extends Error {
  override readonly name = 'SimError';

  constructor(
    readonly kind: SimErrorKind,
    message: string,
    /** Validation: one message per violated rule. Internal: the error codes. */
    readonly details: readonly string[] = [],
  ) {
    super(message);
  }

  static notFound(what: string, id: string | number): SimError {
    return new SimError('not_found', `${what} ${id} not found`);
  }

  static conflict(message: string): SimError {
    return new SimError('conflict', message);
  }

  static validation(messages: readonly string[]): SimError {
    return new SimError('validation', 'Bad Request', messages);
  }
}
