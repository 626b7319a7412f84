import { prunableTable, type PrunableTable } from '../db/index.ts';

/*
 * Retention of the auditor's records (docs/retention.md): one row per clean audit, and only the
 * latest is ever read by `--since last-clean`. Records that started long ago go, except the
 * latest clean audit (the order `lastCleanAudit` reads: `started_at`, then `id`), however old,
 * so an incremental audit always has its watermark. `--since <time>` before the oldest record
 * kept starts from the first journal and inbox row, as it does on a database with no record.
 * "A later one exists" is a seek on `audit_runs_started_at` per row.
 */

/** The clean-audit records, by `started_at`: deleted, never the latest. */
export const AUDIT_RUNS_RETENTION: PrunableTable = prunableTable({
  table: 'audit_runs',
  timeColumn: 'audit_runs.started_at',
  condition: (eb) =>
    eb.exists(
      eb
        .selectFrom('audit_runs as later')
        .select(eb.lit(1).as('one'))
        .where((later) =>
          later.or([
            later('later.started_at', '>', later.ref('audit_runs.started_at')),
            later.and([
              later('later.started_at', '=', later.ref('audit_runs.started_at')),
              later('later.id', '>', later.ref('audit_runs.id')),
            ]),
          ]),
        ),
    ),
});
