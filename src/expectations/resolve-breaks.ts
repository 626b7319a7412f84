import type { Executor } from '../db/index.ts';
import { ExpectationError, requiredReason, requiredResolver } from './expectation-error.ts';
import type { ExpectationContext } from './expectation.repository.ts';
import type { ManualResolution } from './resolve-expectation.ts';
import { BREAK_KINDS, type ExpectationBreakKind } from './expectations.tables.ts';

/**
 * Breaks resolved by hand, one by id or many by a filter: finance resolves hundreds a cycle,
 * and each keeps who, when and why, so a manual resolution is always told apart from a cleared
 * one.
 */

/** A break as shown in lists and in what a resolution returns. */
export interface BreakView {
  readonly id: number;
  readonly kind: ExpectationBreakKind;
  /** The merchant's expectation id; null for an `unexpected` item. */
  readonly expectation_id: string | null;
  readonly item_kind: string | null;
  readonly item_id: string | null;
  /** Settled minus expected, minor units, where the break is about an amount. */
  readonly difference: number | null;
  readonly currency: string | null;
  readonly explanation: string;
  readonly suggested_action: string;
  readonly state: 'open' | 'resolved';
  readonly resolved_by: string | null;
  readonly resolved_at: string | null;
  readonly resolution_reason: string | null;
  readonly detected_at: string;
}

/** Which open breaks a bulk resolution takes. */
export interface BreakFilter {
  readonly kind: ExpectationBreakKind;
  /** Only breaks whose |difference| is at most this (minor units); breaks without one are left. */
  readonly maxDifference?: number;
  readonly currency?: string;
  /** detected_at in [from, to): UTC ISO. */
  readonly from?: string;
  readonly to?: string;
}

export interface BulkResolution {
  /** How many were resolved (or would be, with dryRun). */
  readonly count: number;
  /** Which, by id. */
  readonly breaks: BreakView[];
  readonly dryRun: boolean;
}

/** Breaks with their expectation's id, as every list of breaks selects them. */
export function breakQuery(db: Executor) {
  return db
    .selectFrom('expectation_breaks as b')
    .leftJoin('expectations as e', 'e.id', 'b.expectation')
    .select([
      'b.id',
      'b.kind',
      'e.expectation_id',
      'b.item_kind',
      'b.item_id',
      'b.difference',
      'b.currency',
      'b.explanation',
      'b.suggested_action',
      'b.state',
      'b.resolved_by',
      'b.resolved_at',
      'b.resolution_reason',
      'b.detected_at',
    ]);
}

type BreakSelection = Awaited<ReturnType<ReturnType<typeof breakQuery>['execute']>>[number];

export function breakView(row: BreakSelection): BreakView {
  return {
    ...row,
    id: Number(row.id),
    expectation_id: row.expectation_id ?? null,
    difference: row.difference === null ? null : Number(row.difference),
  };
}

/** The breaks of one expectation (by its row id), oldest first. */
export async function breaksOf(db: Executor, expectationRowId: number): Promise<BreakView[]> {
  const rows = await breakQuery(db)
    .where('b.expectation', '=', expectationRowId)
    .orderBy('b.id')
    .execute();
  return rows.map(breakView);
}

function checkedResolution(resolution: ManualResolution): ManualResolution {
  const reason = requiredReason(resolution.reason);
  return { reason, by: requiredResolver(resolution.by) };
}

async function markResolved(
  db: Executor,
  ids: readonly number[],
  { reason, by }: ManualResolution,
  at: string,
): Promise<void> {
  for (let start = 0; start < ids.length; start += 500) {
    await db
      .updateTable('expectation_breaks')
      .set({ state: 'resolved', resolved_by: by, resolved_at: at, resolution_reason: reason })
      .set({ updated_at: at })
      .where('id', 'in', ids.slice(start, start + 500))
      .where('state', '=', 'open')
      .execute();
  }
}

export interface ResolveBreakOutcome {
  readonly outcome: 'resolved' | 'already_resolved';
  readonly break: BreakView;
}

/** Resolves one break by its id; a break already resolved is left as it is, and says so. */
export async function resolveBreak(
  db: Executor,
  ctx: ExpectationContext,
  breakId: number,
  resolution: ManualResolution,
): Promise<ResolveBreakOutcome> {
  const checked = checkedResolution(resolution);
  const find = () =>
    breakQuery(db)
      .where('b.id', '=', breakId)
      .where('b.environment', '=', ctx.environment)
      .executeTakeFirst();
  const row = await find();
  if (!row) {
    throw new ExpectationError({ code: 'break_not_found', breakId, environment: ctx.environment });
  }
  if (row.state === 'resolved') return { outcome: 'already_resolved', break: breakView(row) };
  await markResolved(db, [Number(row.id)], checked, ctx.now().toISOString());
  return { outcome: 'resolved', break: breakView((await find())!) };
}

/**
 * Resolves every open break the filter selects (all with the same who, when and why) and
 * returns how many and which; with `dryRun` it only returns them.
 */
export async function resolveBreaks(
  db: Executor,
  ctx: ExpectationContext,
  filter: BreakFilter,
  resolution: ManualResolution & { readonly dryRun?: boolean },
): Promise<BulkResolution> {
  const checked = checkedResolution(resolution);
  if (!BREAK_KINDS.includes(filter.kind)) {
    throw new ExpectationError({
      code: 'break_kind_unknown',
      kind: filter.kind,
      kinds: BREAK_KINDS,
    });
  }
  let query = breakQuery(db)
    .where('b.environment', '=', ctx.environment)
    .where('b.state', '=', 'open')
    .where('b.kind', '=', filter.kind);
  if (filter.maxDifference !== undefined) {
    query = query.where('b.difference', 'is not', null);
    query = query.where('b.difference', '>=', -filter.maxDifference);
    query = query.where('b.difference', '<=', filter.maxDifference);
  }
  if (filter.currency !== undefined) query = query.where('b.currency', '=', filter.currency);
  if (filter.from !== undefined) query = query.where('b.detected_at', '>=', filter.from);
  if (filter.to !== undefined) query = query.where('b.detected_at', '<', filter.to);
  const rows = (await query.orderBy('b.id').execute()).map(breakView);
  const dryRun = resolution.dryRun ?? false;
  if (dryRun || rows.length === 0) return { count: rows.length, breaks: rows, dryRun };
  const at = ctx.now().toISOString();
  await markResolved(
    db,
    rows.map((row) => row.id),
    checked,
    at,
  );
  return {
    count: rows.length,
    breaks: rows.map((row) => ({
      ...row,
      state: 'resolved' as const,
      resolved_by: checked.by,
      resolved_at: at,
      resolution_reason: checked.reason,
    })),
    dryRun,
  };
}
