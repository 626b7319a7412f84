import type {
  BalanceSettings,
  BooksSettings,
  ExportSettings,
  JanitorSettings,
  PollingSettings,
  RetentionSettings,
} from '../src/config/index.ts';
import type { AlertRuntime } from '../src/alerts/index.ts';
import type { SyncDependencies } from '../src/reconcile/index.ts';

/** What every processor of one worker process shares. */
export interface JobContext extends SyncDependencies {
  /** Inbox rows open longer than this are enqueued again by the recovery sweep. */
  readonly recoveryAfterMs: number;
  /** The janitor's schedule, SLAs and batch (config `janitor`). */
  readonly janitor: JanitorSettings;
  /** `PAYSYNC_RECEIPTS_DIR`: where receipt HTML is archived. */
  readonly receiptsDir: string;
  /** Waits between tries of a receipt that answers 409. @defaultValue see src/receipts */
  readonly receiptRetryDelaysMs?: readonly number[];
  /** `live` or `sandbox`: sweep checkpoints are kept per environment. */
  readonly environment: string;
  /** Sweep window, page size, and when a run with no heartbeat counts as dead. */
  readonly polling: PollingSettings;
  /** Snapshots and low-balance thresholds (config `balances`). */
  readonly balances: BalanceSettings;
  /** The books' time zone, which closes their days (config `books`). */
  readonly books: BooksSettings;
  /** Kinds of open expectation break that make a day `BREAKS` (`PAYSYNC_EXPECTATIONS_BREAK_VERDICT`). */
  readonly expectationBreakVerdict?: readonly string[];
  /** Sinks, routing and pacing of alerts; without it alert follow-ups are only logged. */
  readonly alerts?: AlertRuntime;
  /** The daily export (config `exports`, plus the books' zone and environment); absent: off. */
  readonly exports?: ExportSettings & { readonly timeZone: string; readonly environment: string };
  /** How long traffic tables keep their rows, and the batch size (config `retention`). */
  readonly retention: RetentionSettings;
  /** References per sync batch, a retry's included (`PAYSYNC_SYNC_BATCH_SIZE`). */
  readonly syncBatchSize: number;
  /** Crash tests only (`PAYSYNC_SYNC_BATCH_HOLD_AFTER_COMMIT_MS`): hold between commit and ack. */
  readonly syncBatchHoldAfterCommitMs?: number;
}
