import type { Generated, Selectable } from 'kysely';

/**
 * One clean audit (migration 0013): the watermark an incremental audit starts from. Only clean
 * runs are recorded, so `--since last-clean` never starts after something wrong.
 */
export interface AuditRunTable {
  id: Generated<number>;
  /** `full` or `incremental`. */
  mode: string;
  /** When the audit began (UTC ISO 8601 with milliseconds); its reads came after. */
  started_at: string;
  finished_at: string;
  /** An incremental run's start of scope; null for a full run. */
  scope_from: string | null;
  /** The highest journal id when the run began: every journal up to it was judged. */
  max_journal_id: number;
  /** The highest inbox id when the run began. */
  max_inbox_id: number;
  /** Items and journals it judged. */
  items: number;
  journals: number;
}

export type AuditRunRow = Selectable<AuditRunTable>;
