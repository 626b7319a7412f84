import type { JanitorSettings } from '../src/config.ts';
import type { AlertRuntime } from '../src/alerts/index.ts';
import type { SyncDependencies } from '../src/reconcile/index.ts';

/** What every processor of one worker process shares. */
export interface JobContext extends SyncDependencies {
  /** Inbox rows open longer than this are enqueued again by the recovery sweep. */
  readonly recoveryAfterMs: number;
  /** The janitor's schedule, SLAs and batch (config `janitor`). */
  readonly janitor: JanitorSettings;
  /** Sinks, routing and pacing of alerts; without it alert follow-ups are only logged. */
  readonly alerts?: AlertRuntime;
}
