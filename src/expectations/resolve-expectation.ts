import type { Executor } from '../db/index.ts';
import { ExpectationError, requiredReason, requiredResolver } from './expectation-error.ts';
import { insertHistory } from './expectation-history.ts';
import { canonicalJson } from './expectation-input.ts';
import {
  expectationView,
  requireExpectationRow,
  type ExpectationContext,
  type ExpectationView,
} from './expectation.repository.ts';

export interface ManualResolution {
  readonly reason: string;
  /** Who resolved it: a name, the OS user for the CLI. */
  readonly by: string;
}

export interface ResolveExpectationOutcome {
  /** `already_resolved`: nothing was changed. */
  readonly outcome: 'resolved' | 'already_resolved';
  readonly expectation: ExpectationView;
  /** Its open breaks, resolved with it (same who, when and why). */
  readonly breaksResolved: number;
}

/**
 * Resolves an expectation by hand (`resolved_manually`, with who, when and why), and its open
 * breaks with it: the merchant has settled the question, so nothing about it stays open.
 */
export async function resolveExpectation(
  db: Executor,
  ctx: ExpectationContext,
  expectationId: string,
  resolution: ManualResolution & { readonly source: string },
): Promise<ResolveExpectationOutcome> {
  const reason = requiredReason(resolution.reason);
  const by = requiredResolver(resolution.by);
  const row = await requireExpectationRow(db, ctx.environment, expectationId);
  if (row.state === 'resolved_manually') {
    return { outcome: 'already_resolved', expectation: expectationView(row), breaksResolved: 0 };
  }
  if (row.state === 'cancelled') {
    throw new ExpectationError({ code: 'expectation_cancelled', expectationId });
  }
  const at = ctx.now().toISOString();
  await db
    .updateTable('expectations')
    .set({
      state: 'resolved_manually',
      resolved_by: by,
      resolved_at: at,
      resolution_reason: reason,
      updated_at: at,
    })
    .where('id', '=', row.id)
    .execute();
  const breaks = await db
    .updateTable('expectation_breaks')
    .set({
      state: 'resolved',
      resolved_by: by,
      resolved_at: at,
      resolution_reason: reason,
      updated_at: at,
    })
    .where('expectation', '=', row.id)
    .where('state', '=', 'open')
    .executeTakeFirst();
  await insertHistory(db, [
    {
      expectation: Number(row.id),
      version: Number(row.version),
      change: 'resolved',
      source: resolution.source,
      actor: by,
      before: canonicalJson({ state: row.state }),
      after: canonicalJson({ state: 'resolved_manually', reason }),
      at,
    },
  ]);
  const updated = await requireExpectationRow(db, ctx.environment, expectationId);
  return {
    outcome: 'resolved',
    expectation: expectationView(updated),
    breaksResolved: Number(breaks.numUpdatedRows),
  };
}
