export type LedgerErrorCode =
  'unbalanced_journal' | 'invalid_input' | 'missing_mirror_row' | 'concurrent_booking';

/**
 * Raised when the ledger is asked to do something that would break its invariants. It is
 * thrown inside the caller's transaction, so nothing of the failed apply is committed.
 */
export class LedgerError extends Error {
  override readonly name = 'LedgerError';
  constructor(
    readonly code: LedgerErrorCode,
    message: string,
  ) {
    super(message);
  }
}
