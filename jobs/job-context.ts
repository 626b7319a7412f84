import type { PollingSettings } from '../src/config.ts';
import type { SyncDependencies } from '../src/reconcile/index.ts';

/** What every processor of one worker process shares. */
export interface JobContext extends SyncDependencies {
  /** Inbox rows open longer than this are enqueued again by the recovery sweep. */
  readonly recoveryAfterMs: number;
  /** `live` or `sandbox`: sweep checkpoints are kept per environment. */
  readonly environment: string;
  /** Sweep window, page size, and when a run with no heartbeat counts as dead. */
  readonly polling: PollingSettings;
}
