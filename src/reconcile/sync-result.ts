import type { ApplyOutcome } from '../ledger/index.ts';

/** Which try of the job this is, 1-based (BullMQ's `attemptsMade` + 1). */
export interface SyncAttempt {
  readonly attempt: number;
}

/**
 * What a sync came to. The job turns `retry` into a thrown error (BullMQ backs off and tries
 * again) and `stop` into an `UnrecoverableError` (no retry); the others complete the job.
 */
export type SyncResult =
  | {
      readonly outcome: 'synced';
      readonly outcomes: readonly ApplyOutcome[];
      readonly closedRows: number;
    }
  | {
      readonly outcome: 'linked';
      readonly paymentIntents: readonly string[];
      readonly closedRows: number;
    }
  | {
      /** An earlier fetch covered every open event and no poll was due: nothing fetched. */
      readonly outcome: 'skipped';
      readonly closedRows: number;
    }
  | { readonly outcome: 'retry'; readonly error: unknown; readonly reason: string }
  | { readonly outcome: 'gave_up'; readonly reason: string }
  | { readonly outcome: 'stop'; readonly reason: string };
