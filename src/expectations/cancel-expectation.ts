import type { Executor } from '../db/index.ts';
import { insertHistory } from './expectation-history.ts';
import { canonicalJson } from './expectation-input.ts';
import {
  expectationView,
  requireExpectationRow,
  type ChangeOrigin,
  type ExpectationContext,
  type ExpectationView,
} from './expectation.repository.ts';

export interface CancelOutcome {
  /** `already_cancelled`: nothing was changed. */
  readonly outcome: 'cancelled' | 'already_cancelled';
  readonly expectation: ExpectationView;
}

/** Cancels an expectation: nothing is expected any more; the history keeps who and why. */
export async function cancelExpectation(
  db: Executor,
  ctx: ExpectationContext,
  expectationId: string,
  change: ChangeOrigin & { readonly reason?: string | undefined },
): Promise<CancelOutcome> {
  const row = await requireExpectationRow(db, ctx.environment, expectationId);
  if (row.state === 'cancelled') {
    return { outcome: 'already_cancelled', expectation: expectationView(row) };
  }
  const at = ctx.now().toISOString();
  const reason = change.reason?.trim() || null;
  await db
    .updateTable('expectations')
    .set({ state: 'cancelled', updated_at: at })
    .where('id', '=', row.id)
    .execute();
  await insertHistory(db, [
    {
      expectation: Number(row.id),
      version: Number(row.version),
      change: 'cancelled',
      source: change.source,
      actor: change.actor,
      before: canonicalJson({ state: row.state }),
      after: canonicalJson({ state: 'cancelled', reason }),
      at,
    },
  ]);
  const updated = await requireExpectationRow(db, ctx.environment, expectationId);
  return { outcome: 'cancelled', expectation: expectationView(updated) };
}
