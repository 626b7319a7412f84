import type { Executor } from '../db/index.ts';
import type { Clock } from '../lifecycle/index.ts';
import type { ResourceKind } from '../resources/index.ts';
import { ExpectationError } from './expectation-error.ts';
import { insertHistory } from './expectation-history.ts';
import {
  canonicalJson,
  type ExpectationContent,
  type ParsedExpectation,
} from './expectation-input.ts';
import type { ExpectationRow, ExpectationState } from './expectations.tables.ts';
import type { AllExpectedOption } from './matching/match-types.ts';

/**
 * The expectations' rows: found, listed, and upserted by (environment, expectation id); a
 * cancellation and a manual resolution are in cancel-expectation.ts and resolve-expectation.ts.
 * Every function takes the executor first; the caller owns the transaction, so an import
 * commits whole or not at all.
 */

/** Where a change comes from and who made it (kept in the history). */
export interface ChangeOrigin {
  /** `import:<file name>`, `api`, `cli`, `dashboard`. */
  readonly source: string;
  readonly actor: string | null;
}

export interface ExpectationContext {
  readonly environment: string;
  readonly now: Clock;
  /**
   * Directions whose unclaimed settled items are `unexpected` breaks, for the matching that
   * runs when expectations are loaded (PAYSYNC_EXPECTATIONS_ALL_EXPECTED). @defaultValue `off`
   */
  readonly allExpected?: AllExpectedOption;
}

/** An expectation as paysync shows it: the merchant's content and what became of it. */
export interface ExpectationView extends ExpectationContent {
  readonly state: ExpectationState;
  readonly matched_amount: number;
  readonly version: number;
  readonly resolved_by: string | null;
  readonly resolved_at: string | null;
  readonly resolution_reason: string | null;
  readonly created_at: string;
  readonly updated_at: string;
}

export type UpsertOutcome = 'created' | 'updated' | 'unchanged';

/** The merchant's content as stored in a row. */
export function rowContent(row: ExpectationRow): ExpectationContent {
  return {
    expectation_id: row.expectation_id,
    direction: row.direction,
    currency: row.currency,
    amount_min: Number(row.amount_min),
    amount_max: Number(row.amount_max),
    window_from: row.window_from,
    window_to: row.window_to,
    reference: row.reference,
    item_id: row.item_id,
    counterparty: row.counterparty,
    purchase_reference: row.purchase_reference,
    description_pattern: row.description_pattern,
    item_kinds: row.item_kinds === null ? null : (JSON.parse(row.item_kinds) as ResourceKind[]),
    allow_split: Number(row.allow_split) === 1,
    match_group: row.match_group,
    metadata: JSON.parse(row.metadata) as ExpectationContent['metadata'],
  };
}

export function expectationView(row: ExpectationRow): ExpectationView {
  return {
    ...rowContent(row),
    state: row.state,
    matched_amount: Number(row.matched_amount),
    version: Number(row.version),
    resolved_by: row.resolved_by,
    resolved_at: row.resolved_at,
    resolution_reason: row.resolution_reason,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** The content columns of a row, from canonical content. */
function contentColumns(content: ExpectationContent, contentHash: string) {
  return {
    expectation_id: content.expectation_id,
    direction: content.direction,
    item_kinds: content.item_kinds === null ? null : JSON.stringify(content.item_kinds),
    currency: content.currency,
    amount_min: content.amount_min,
    amount_max: content.amount_max,
    window_from: content.window_from,
    window_to: content.window_to,
    reference: content.reference,
    item_id: content.item_id,
    counterparty: content.counterparty,
    purchase_reference: content.purchase_reference,
    description_pattern: content.description_pattern,
    allow_split: content.allow_split ? 1 : 0,
    match_group: content.match_group,
    metadata: canonicalJson(content.metadata),
    content_hash: contentHash,
  };
}

export async function findExpectationRow(
  db: Executor,
  environment: string,
  expectationId: string,
): Promise<ExpectationRow | undefined> {
  return db
    .selectFrom('expectations')
    .selectAll()
    .where('environment', '=', environment)
    .where('expectation_id', '=', expectationId)
    .executeTakeFirst();
}

/** The row, or a `not_found` refusal that says where to look. */
export async function requireExpectationRow(
  db: Executor,
  environment: string,
  expectationId: string,
): Promise<ExpectationRow> {
  const row = await findExpectationRow(db, environment, expectationId);
  if (!row) {
    throw new ExpectationError({ code: 'expectation_not_found', expectationId, environment });
  }
  return row;
}

/**
 * Creates or updates a batch of expectations (distinct ids) in the caller's transaction: a new
 * id is `open` at version 1; the same content hash changes nothing at all; a changed content
 * bumps the version and keeps the state (matching re-runs later). Each change is in the history.
 * Returns one outcome per input, in order.
 */
export async function upsertExpectations(
  db: Executor,
  ctx: ExpectationContext,
  items: readonly ParsedExpectation[],
  origin: ChangeOrigin,
): Promise<UpsertOutcome[]> {
  if (items.length === 0) return [];
  const existing = new Map<string, ExpectationRow>();
  const rows = await db
    .selectFrom('expectations')
    .selectAll()
    .where('environment', '=', ctx.environment)
    .where(
      'expectation_id',
      'in',
      items.map((item) => item.content.expectation_id),
    )
    .execute();
  for (const row of rows) existing.set(row.expectation_id, row);

  const at = ctx.now().toISOString();
  const outcomes: UpsertOutcome[] = [];
  const created: ParsedExpectation[] = [];
  for (const item of items) {
    const row = existing.get(item.content.expectation_id);
    if (!row) {
      created.push(item);
      outcomes.push('created');
    } else if (row.content_hash === item.contentHash) {
      outcomes.push('unchanged');
    } else {
      await updateContent(db, row, item, at, origin);
      outcomes.push('updated');
    }
  }
  if (created.length > 0) {
    const inserted = await db
      .insertInto('expectations')
      .values(
        created.map((item) => ({
          environment: ctx.environment,
          ...contentColumns(item.content, item.contentHash),
          state: 'open' as const,
          matched_amount: 0,
          version: 1,
          created_at: at,
          updated_at: at,
        })),
      )
      .returning(['id', 'expectation_id'])
      .execute();
    const ids = new Map(inserted.map((row) => [row.expectation_id, Number(row.id)]));
    await insertHistory(
      db,
      created.map((item) => ({
        expectation: ids.get(item.content.expectation_id)!,
        version: 1,
        change: 'created' as const,
        ...origin,
        before: null,
        after: canonicalJson(item.content),
        at,
      })),
    );
  }
  return outcomes;
}

async function updateContent(
  db: Executor,
  row: ExpectationRow,
  item: ParsedExpectation,
  at: string,
  origin: ChangeOrigin,
): Promise<void> {
  const version = Number(row.version) + 1;
  await db
    .updateTable('expectations')
    .set({ ...contentColumns(item.content, item.contentHash), version, updated_at: at })
    .where('id', '=', row.id)
    .execute();
  await insertHistory(db, [
    {
      expectation: Number(row.id),
      version,
      change: 'updated',
      ...origin,
      before: canonicalJson(rowContent(row)),
      after: canonicalJson(item.content),
      at,
    },
  ]);
}

export interface ListExpectationsFilter {
  readonly state?: ExpectationState;
  /** @defaultValue 100 */
  readonly limit?: number;
}

/**
 * Expectations of one state by window end, what is due first (the index on environment, state,
 * window end); without a state, the latest loaded first (the primary key), so neither sorts the
 * whole table.
 */
export async function listExpectations(
  db: Executor,
  environment: string,
  filter: ListExpectationsFilter = {},
): Promise<ExpectationView[]> {
  const query = db.selectFrom('expectations').selectAll().where('environment', '=', environment);
  const ordered = filter.state
    ? query.where('state', '=', filter.state).orderBy('window_to').orderBy('id')
    : query.orderBy('id', 'desc');
  const rows = await ordered.limit(filter.limit ?? 100).execute();
  return rows.map(expectationView);
}
