import type { Executor } from '../db/index.ts';

const KEY = 'write_probe';

/**
 * Writes the time of this probe under `write_probe`: a real change, committed by the caller, so
 * that a database whose disk is full fails it as it fails an inbox commit (an UPDATE that
 * matches no row writes no page and would pass). One row, rewritten in place: it does not grow.
 */
export async function recordWriteProbe(db: Executor, at: string): Promise<void> {
  await db
    .insertInto('service_state')
    .values({ key: KEY, value: JSON.stringify({ at }), updated_at: at })
    .onConflict((oc) =>
      oc.column('key').doUpdateSet({ value: JSON.stringify({ at }), updated_at: at }),
    )
    .execute();
}
