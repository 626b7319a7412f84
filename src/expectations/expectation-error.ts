/**
 * Why a manual change of an expectation or a break changed nothing, as data: a `code` and the
 * facts it needs. The doors word it (the CLI names its flags, the ops API its fields).
 */
export type ExpectationRefusal =
  | { readonly code: 'reason_required' }
  | { readonly code: 'reason_too_long'; readonly max: number }
  /** Nobody named as resolving it. */
  | { readonly code: 'resolver_required' }
  | {
      readonly code: 'expectation_not_found';
      readonly expectationId: string;
      readonly environment: string;
    }
  | { readonly code: 'break_not_found'; readonly breakId: number; readonly environment: string }
  | {
      readonly code: 'break_kind_unknown';
      readonly kind: string;
      readonly kinds: readonly string[];
    }
  /** A cancelled expectation expects nothing, so there is nothing to resolve. */
  | { readonly code: 'expectation_cancelled'; readonly expectationId: string };

export type ExpectationErrorCode = ExpectationRefusal['code'];

const MAX_REASON = 1_000;

/** A plain line for logs, and for the dashboard, which shows it as it is. */
function plainMessage(refusal: ExpectationRefusal): string {
  switch (refusal.code) {
    case 'reason_required':
      return 'a reason is required: say why, it is kept with who and when';
    case 'reason_too_long':
      return `the reason must be at most ${refusal.max} characters`;
    case 'resolver_required':
      return 'say who resolves it';
    case 'expectation_not_found':
      return `no expectation "${refusal.expectationId}" in the ${refusal.environment} books`;
    case 'break_not_found':
      return `no break ${refusal.breakId} in the ${refusal.environment} books`;
    case 'break_kind_unknown':
      return `"${refusal.kind}" is not a break kind: one of ${refusal.kinds.join(', ')}`;
    case 'expectation_cancelled':
      return `expectation "${refusal.expectationId}" is cancelled: nothing is expected, so there is nothing to resolve`;
  }
}

/** How a door answers a refusal: 404 and exit 1, 400 and exit 2, or 409 (its state). */
export type ExpectationErrorKind = 'not_found' | 'bad_input' | 'not_resolvable';

const KIND: Record<ExpectationErrorCode, ExpectationErrorKind> = {
  reason_required: 'bad_input',
  reason_too_long: 'bad_input',
  resolver_required: 'bad_input',
  expectation_not_found: 'not_found',
  break_not_found: 'not_found',
  break_kind_unknown: 'bad_input',
  expectation_cancelled: 'not_resolvable',
};

/**
 * A refusal of a manual change: `refusal` holds its code and fields, `code` its kind (what the
 * dashboard, which shows `message` as it is, answers with).
 */
export class ExpectationError extends Error {
  override readonly name = 'ExpectationError';
  readonly code: ExpectationErrorKind;
  /** Undefined only for a door's own refusal in its own words (the two-argument form). */
  readonly refusal: ExpectationRefusal | undefined;
  constructor(refusal: ExpectationRefusal);
  /** A door's own refusal, already worded (the dashboard's unknown break). */
  constructor(kind: ExpectationErrorKind, message: string);
  constructor(refusal: ExpectationRefusal | ExpectationErrorKind, message?: string) {
    if (typeof refusal === 'string') {
      super(message);
      this.code = refusal;
      this.refusal = undefined;
    } else {
      super(plainMessage(refusal));
      this.code = KIND[refusal.code];
      this.refusal = refusal;
    }
  }
}

/** The who and why of a manual change; the reason is required and kept verbatim. */
export function requiredReason(reason: string | undefined): string {
  const trimmed = reason?.trim() ?? '';
  if (trimmed === '') throw new ExpectationError({ code: 'reason_required' });
  if (trimmed.length > MAX_REASON) {
    throw new ExpectationError({ code: 'reason_too_long', max: MAX_REASON });
  }
  return trimmed;
}

/** Who resolves it, trimmed; refused when blank. */
export function requiredResolver(by: string): string {
  const trimmed = by.trim();
  if (trimmed === '') throw new ExpectationError({ code: 'resolver_required' });
  return trimmed;
}
