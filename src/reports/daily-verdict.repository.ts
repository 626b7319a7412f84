import type { Executor } from '../ledger/index.ts';
import type { DailyReport } from './daily-report.ts';
import type { Verdict } from './daily-verdict.table.ts';

export interface StoredVerdict {
  readonly environment: string;
  readonly day: string;
  readonly verdict: Verdict;
  readonly computedAt: string;
  readonly report: DailyReport;
}

/**
 * Stores a day's verdict; a later computation of the same day replaces it (a break resolved
 * since, a snapshot filled in). Returns the verdict it replaced, if any.
 */
export async function storeVerdict(
  db: Executor,
  report: DailyReport,
): Promise<Verdict | undefined> {
  const previous = await db
    .selectFrom('daily_verdicts')
    .select('verdict')
    .where('environment', '=', report.environment)
    .where('day', '=', report.day)
    .executeTakeFirst();
  const values = {
    time_zone: report.timeZone,
    verdict: report.verdict,
    report: JSON.stringify(report),
    computed_at: report.generatedAt,
  };
  await db
    .insertInto('daily_verdicts')
    .values({ environment: report.environment, day: report.day, ...values })
    .onConflict((oc) => oc.columns(['environment', 'day']).doUpdateSet(values))
    .execute();
  return previous?.verdict;
}

/** Stored verdicts, newest day first. */
export async function storedVerdicts(
  db: Executor,
  environment: string,
  options: { limit?: number; since?: string } = {},
): Promise<StoredVerdict[]> {
  let query = db
    .selectFrom('daily_verdicts')
    .selectAll()
    .where('environment', '=', environment)
    .orderBy('day', 'desc')
    .limit(options.limit ?? 31);
  if (options.since) query = query.where('day', '>=', options.since);
  const rows = await query.execute();
  return rows.map((row) => ({
    environment: row.environment,
    day: row.day,
    verdict: row.verdict,
    computedAt: row.computed_at,
    report: JSON.parse(row.report) as DailyReport,
  }));
}

/** The stored verdict of one day, if any. */
export async function storedVerdictOf(
  db: Executor,
  environment: string,
  day: string,
): Promise<StoredVerdict | undefined> {
  const row = await db
    .selectFrom('daily_verdicts')
    .selectAll()
    .where('environment', '=', environment)
    .where('day', '=', day)
    .executeTakeFirst();
  return row
    ? {
        environment: row.environment,
        day: row.day,
        verdict: row.verdict,
        computedAt: row.computed_at,
        report: JSON.parse(row.report) as DailyReport,
      }
    : undefined;
}
