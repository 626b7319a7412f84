/** `not_found`: no such expectation or break; `bad_input`: the request itself is wrong. */
export type ExpectationErrorCode = 'not_found' | 'bad_input' | 'not_resolvable';

/** A refusal of a manual change, in one line that names what to do. */
export class ExpectationError extends Error {
  override readonly name = 'ExpectationError';
  constructor(
    readonly code: ExpectationErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** The who and why of a manual change; the reason is required and kept verbatim. */
export function requiredReason(reason: string | undefined): string {
  const trimmed = reason?.trim() ?? '';
  if (trimmed === '') {
    throw new ExpectationError(
      'bad_input',
      'a reason is required: say why, it is kept with who and when',
    );
  }
  if (trimmed.length > 1_000) {
    throw new ExpectationError('bad_input', 'the reason must be at most 1000 characters');
  }
  return trimmed;
}
