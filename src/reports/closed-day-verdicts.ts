import type { Kysely } from 'kysely';
import type { Database } from '../db/index.ts';
import { addToOutbox, notifyOutbox } from '../outbox/index.ts';
import { dayOf, nextDay, previousDay } from '../books-calendar/index.ts';
import { dayVerdictEvent, emitRelayEvents, notifyRelay } from '../relay/index.ts';
import { storeVerdict } from './daily-verdict.repository.ts';
import type { Verdict } from './daily-verdict.table.ts';
import {
  firstJudgedDay,
  hasEndOfDaySnapshot,
  judgeDay,
  type VerdictBooks,
  type VerdictRules,
} from './day-verdict.ts';

export interface ClosedDayDependencies extends VerdictRules {
  readonly db: Kysely<Database>;
  readonly environment: string;
  readonly timeZone: string;
  /** The clock, resolved where the process is assembled. */
  readonly now: () => Date;
}

/**
 * The scheduled verdict task: each closed day whose end-of-day snapshot is in gets its verdict
 * stored; a day not yet `RECONCILED` is judged again on later runs (a break resolved, a sweep
 * caught up). A day that becomes `BREAKS` or `INCOMPLETE` raises one `day_not_reconciled`
 * follow-up per verdict, written to the outbox with the stored verdict. The day's first stored
 * verdict emits the relay's `day.verdict` event in the same transaction (one per day).
 */
export async function judgeClosedDays(
  deps: ClosedDayDependencies,
): Promise<{ day: string; verdict: Verdict; previous: Verdict | undefined }[]> {
  const now = deps.now();
  const lastClosed = previousDay(dayOf(now, deps.timeZone));
  const books: VerdictBooks = { ...deps, rules: deps };
  const judged: { day: string; verdict: Verdict; previous: Verdict | undefined }[] = [];
  let deliveries = 0;
  for (let day = firstJudgedDay(now, deps.timeZone); day <= lastClosed; day = nextDay(day)) {
    const stored = await deps.db
      .selectFrom('daily_verdicts')
      .select('verdict')
      .where('environment', '=', deps.environment)
      .where('day', '=', day)
      .executeTakeFirst();
    if (stored?.verdict === 'RECONCILED') continue;
    if (!(await hasEndOfDaySnapshot(books, day))) continue;
    const report = await judgeDay(books, day, now);
    const previous = await deps.db.transaction().execute(async (trx) => {
      const before = await storeVerdict(trx, report);
      const bad = report.verdict === 'BREAKS' || report.verdict === 'INCOMPLETE';
      if (bad && before !== report.verdict) {
        await addToOutbox(trx, {
          kind: 'alert',
          dedupeKey: `alert:day_not_reconciled:${deps.environment}:${day}:${report.verdict}`,
          payload: {
            reason: 'day_not_reconciled',
            kind: 'day',
            id: `${deps.environment}:${day}`,
            detail: {
              verdict: report.verdict,
              breaks: report.breaks.map((b) => b.line),
              incomplete: report.incomplete,
            },
          },
          createdAt: now.toISOString(),
        });
      }
      const emitted = await emitRelayEvents(
        trx,
        [
          dayVerdictEvent(deps.environment, {
            day,
            timeZone: report.timeZone,
            window: report.window,
            verdict: report.verdict,
            counts: report.counts.map((c) => ({ kind: c.kind, status: c.status, count: c.count })),
            pending: report.pending.length,
            breaks: report.breaks.length,
            incomplete: [...report.incomplete],
            computedAt: report.generatedAt,
          }),
        ],
        now.toISOString(),
      );
      deliveries += emitted.deliveries;
      return before;
    });
    judged.push({ day, verdict: report.verdict, previous });
  }
  if (judged.some((j) => j.verdict === 'BREAKS' || j.verdict === 'INCOMPLETE')) notifyOutbox();
  if (deliveries > 0) notifyRelay();
  return judged;
}
