import type { ExportSettings, JanitorSettings } from '../src/config.ts';
import type { SyncDependencies } from '../src/reconcile/index.ts';

/** What every processor of one worker process shares. */
export interface JobContext extends SyncDependencies {
  /** Inbox rows open longer than this are enqueued again by the recovery sweep. */
  readonly recoveryAfterMs: number;
  /** The janitor's schedule, SLAs and batch (config `janitor`). */
  readonly janitor: JanitorSettings;
  /** The daily export (config `exports`, plus the books' zone and environment); absent: off. */
  readonly exports?: ExportSettings & { readonly timeZone: string; readonly environment: string };
}
