import type { Kysely } from 'kysely';
import type { Database } from '../db/index.ts';
import { LIST_STREAMS, SWEEP_KINDS } from './list-streams.ts';
import { sweepStreamKey } from './run-sweep.ts';

interface Interval {
  readonly from: string;
  readonly to: string;
}

/** The creation-time intervals whose every item was applied: sweeps and backfills. */
async function coveredIntervals(
  db: Kysely<Database>,
  kind: (typeof SWEEP_KINDS)[number],
  environment: string,
): Promise<Interval[]> {
  const sweepKey = sweepStreamKey(kind, environment);
  // Backfill streams are `backfill:<ledger kind>:<environment>:<from>..<to>` (run-backfill.ts).
  const backfillPrefix = `backfill:${LIST_STREAMS[kind].ledgerKind}:${environment}:`;
  const rows = await db
    .selectFrom('polling_checkpoints')
    .select(['stream', 'position'])
    .where((eb) =>
      eb.or([
        eb('stream', '=', sweepKey),
        eb('stream', '=', `${sweepKey}:origin`),
        eb('stream', 'like', `${backfillPrefix}%`),
      ]),
    )
    .execute();
  const intervals: Interval[] = [];
  const sweep = rows.find((r) => r.stream === sweepKey);
  const origin = rows.find((r) => r.stream === `${sweepKey}:origin`);
  if (sweep && origin) intervals.push({ from: origin.position, to: sweep.position });
  for (const row of rows) {
    // backfill:<kind>:<environment>:<from>..<to>: everything from `from` to the position.
    const range = /:(\d{4}-[^.]+\.\d{3}Z)\.\.(\d{4}-[^.]+\.\d{3}Z)$/.exec(row.stream);
    if (row.stream.startsWith('backfill:') && range) {
      intervals.push({ from: range[1]!, to: row.position });
    }
  }
  return intervals;
}

/** True when the union of `intervals` (each [from, to)) holds all of [from, to). */
function covers(intervals: readonly Interval[], window: Interval): boolean {
  let reached = window.from;
  for (const interval of [...intervals].sort((a, b) => a.from.localeCompare(b.from))) {
    if (interval.from > reached) break;
    if (interval.to > reached) reached = interval.to;
    if (reached >= window.to) return true;
  }
  return reached >= window.to;
}

/**
 * Whether the sweeps (and backfills) vouch for a window: for each list, every item created in
 * the window was applied whatever its webhooks did (docs/processing.md). A sweep stream covers
 * from where sweeping began to its checkpoint; a backfill from its `--from` to its checkpoint.
 * Returns undefined when covered, or why not, in one line.
 */
export function sweepCoverage(db: Kysely<Database>, environment: string) {
  return async (window: Interval): Promise<string | undefined> => {
    const gaps: string[] = [];
    for (const kind of SWEEP_KINDS) {
      if (!covers(await coveredIntervals(db, kind, environment), window)) gaps.push(kind);
    }
    return gaps.length === 0
      ? undefined
      : `no sweep or backfill covered ${gaps.join(' and ')} created in ${window.from} – ${window.to} (see paysync runs); paysync backfill --from ${window.from} --to ${window.to} fills the gap`;
  };
}
