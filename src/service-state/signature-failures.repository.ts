import { sql } from 'kysely';
import type { Executor } from '../db/index.ts';

/**
 * Refused webhook signatures, counted durably so the workers' alert watcher (another process)
 * can see a burst: one `service_state` row per UTC minute, key `signature_failures:<minute>`
 * (`signature_failures:2030-01-10T10:05`), value the count. Keys sort by time, so a window is
 * a primary-key range. Each write also drops minutes older than a day (the longest window
 * the config allows), so the rows stay bounded: at most 1,440.
 */
const PREFIX = 'signature_failures:';
const KEEP_MS = 24 * 60 * 60_000;

function minuteKey(at: Date): string {
  return `${PREFIX}${at.toISOString().slice(0, 16)}`;
}

/** Counts one refused signature in the minute of `at`. One upsert and one bounded delete. */
export async function countSignatureFailure(db: Executor, at: Date): Promise<void> {
  const updatedAt = at.toISOString();
  await db
    .insertInto('service_state')
    .values({ key: minuteKey(at), value: '1', updated_at: updatedAt })
    .onConflict((oc) =>
      oc.column('key').doUpdateSet({
        value: sql<string>`CAST(CAST(service_state.value AS INTEGER) + 1 AS TEXT)`,
        updated_at: updatedAt,
      }),
    )
    .execute();
  await db
    .deleteFrom('service_state')
    .where('key', 'like', `${PREFIX}%`)
    .where('key', '<', minuteKey(new Date(at.getTime() - KEEP_MS)))
    .execute();
}

/**
 * Refused signatures counted in the minutes from the one holding `since` to the one holding
 * `until`, both included: minute granularity, so a window of M minutes spans M + 1 buckets at most.
 */
export async function signatureFailuresBetween(
  db: Executor,
  since: Date,
  until: Date,
): Promise<number> {
  const rows = await db
    .selectFrom('service_state')
    .select('value')
    .where('key', 'like', `${PREFIX}%`)
    .where('key', '>=', minuteKey(since))
    .where('key', '<=', minuteKey(until))
    .execute();
  return rows.reduce((sum, row) => sum + (Number(row.value) || 0), 0);
}
