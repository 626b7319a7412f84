import { chunksOf, type Executor } from '../db/index.ts';
import type { ParsedExpectation } from './expectation-input.ts';
import {
  upsertExpectations,
  type ChangeOrigin,
  type ExpectationContext,
  type UpsertOutcome,
} from './expectation.repository.ts';
import { matchExpectationsById } from './matching/match-expectations-run.ts';

export interface LoadOutcome {
  /** One per input, in order. */
  readonly outcomes: UpsertOutcome[];
  /** Of the inputs, how many are `matched` once loaded (whatever their outcome). */
  readonly matched: number;
  /** Of the inputs, how many are `partially_matched` once loaded. */
  readonly partiallyMatched: number;
}

/**
 * Loads a batch of expectations (distinct ids) in the caller's transaction: upserts them, then
 * matches the created and updated ones against the items that already settled, so an
 * expectation loaded after its items settled is matched at once. An unchanged one is not
 * matched again (nothing about it changed) and nothing of it is rewritten.
 */
export async function loadExpectations(
  trx: Executor,
  ctx: ExpectationContext,
  items: readonly ParsedExpectation[],
  origin: ChangeOrigin,
): Promise<LoadOutcome> {
  const outcomes = await upsertExpectations(trx, ctx, items, origin);
  if (items.length === 0) return { outcomes, matched: 0, partiallyMatched: 0 };
  const changed = items
    .filter((_, i) => outcomes[i] !== 'unchanged')
    .map((item) => item.content.expectation_id);
  if (changed.length > 0) {
    const ids: number[] = [];
    for (const chunk of chunksOf(changed)) {
      const rows = await trx
        .selectFrom('expectations')
        .select('id')
        .where('environment', '=', ctx.environment)
        .where('expectation_id', 'in', chunk)
        .execute();
      ids.push(...rows.map((row) => Number(row.id)));
    }
    await matchExpectationsById(trx, ids, ctx.now().toISOString(), {
      environment: ctx.environment,
      allExpected: ctx.allExpected ?? 'off',
    });
  }
  let matched = 0;
  let partiallyMatched = 0;
  for (const chunk of chunksOf(items.map((item) => item.content.expectation_id))) {
    const rows = await trx
      .selectFrom('expectations')
      .select('state')
      .where('environment', '=', ctx.environment)
      .where('expectation_id', 'in', chunk)
      .where('state', 'in', ['matched', 'partially_matched'])
      .execute();
    for (const row of rows) {
      if (row.state === 'matched') matched += 1;
      else partiallyMatched += 1;
    }
  }
  return { outcomes, matched, partiallyMatched };
}
