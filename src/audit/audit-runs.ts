import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/index.ts';
import type { AuditRunRow } from './audit-run.table.ts';

/** What an audit saw when it began: every row up to these ids was in its reads. */
export interface AuditWatermark {
  /** UTC ISO 8601 with milliseconds. */
  readonly startedAt: string;
  readonly maxJournalId: number;
  readonly maxInboxId: number;
}

/** The highest journal and inbox ids now, read before the audit reads anything else. */
export async function readWatermark(
  db: Kysely<Database>,
  startedAt: Date,
): Promise<AuditWatermark> {
  const result = await sql<{ journal: string | null; inbox: string | null }>`
    select (select cast(max(id) as text) from journals) as journal,
      (select cast(max(id) as text) from webhook_inbox) as inbox`.execute(db);
  const row = result.rows[0];
  return {
    startedAt: startedAt.toISOString(),
    maxJournalId: Number(row?.journal ?? 0),
    maxInboxId: Number(row?.inbox ?? 0),
  };
}

/** The latest clean audit, or the latest that began at or before `at`. */
export async function lastCleanAudit(
  db: Kysely<Database>,
  at?: Date,
): Promise<AuditRunRow | undefined> {
  let query = db.selectFrom('audit_runs').selectAll();
  if (at) query = query.where('started_at', '<=', at.toISOString());
  return query.orderBy('started_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
}

/** Records a clean audit's watermark; its id. */
export async function recordCleanAudit(
  db: Kysely<Database>,
  run: {
    mode: 'full' | 'incremental';
    watermark: AuditWatermark;
    finishedAt: Date;
    scopeFrom: string | null;
    items: number;
    journals: number;
  },
): Promise<number> {
  const row = await db
    .insertInto('audit_runs')
    .values({
      mode: run.mode,
      started_at: run.watermark.startedAt,
      finished_at: run.finishedAt.toISOString(),
      scope_from: run.scopeFrom,
      max_journal_id: run.watermark.maxJournalId,
      max_inbox_id: run.watermark.maxInboxId,
      items: run.items,
      journals: run.journals,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}
