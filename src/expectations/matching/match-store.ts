import { sql } from 'kysely';
import { chunksOf, runBulk, type Executor } from '../../db/index.ts';
import type {
  ExpectationBreakRow,
  ExpectationHistoryTable,
  ExpectationMatchRow,
  ExpectationState,
} from '../expectations.tables.ts';
import type { ExpectationBreak, ExpectationMatch, MatchResult } from './match-types.ts';

/** What one application of a result covered: the rows it may change and nothing else. */
export interface MatchScope {
  readonly environment: string;
  /** expectations.id of every expectation the engine was given (closed ones are skipped). */
  readonly expectationIds: readonly number[];
  /** `kind/id` of every item the engine was given: their `unexpected` breaks are its to keep. */
  readonly itemKeys: ReadonlySet<string>;
}

/** How many rows one application wrote; all zero when nothing changed. */
export interface MatchWrites {
  matchesInserted: number;
  matchesDeleted: number;
  matchesUpdated: number;
  expectationsChanged: number;
  historyRows: number;
  breaksOpened: number;
  breaksUpdated: number;
  breaksCleared: number;
}

const MATCHING = 'matching';
const CLEARED = 'cleared by a later match';

const MATCH_INSERT = {
  table: 'expectation_matches',
  columns: [
    'expectation',
    'item_kind',
    'item_id',
    'amount',
    'rule',
    'late',
    'settled_at',
    'matched_at',
  ],
  tail: '',
} as const;
const HISTORY_INSERT = {
  table: 'expectation_history',
  columns: ['expectation', 'version', 'change', 'source', 'actor', 'before', 'after', 'at'],
  tail: '',
} as const;
const BREAK_INSERT = {
  table: 'expectation_breaks',
  columns: [
    'environment',
    'expectation',
    'item_kind',
    'item_id',
    'kind',
    'difference',
    'currency',
    'explanation',
    'suggested_action',
    'state',
    'dedupe_key',
    'detected_at',
    'updated_at',
  ],
  tail: '',
} as const;

function matchKey(expectation: number, kind: string, id: string): string {
  return `${expectation}|${kind}/${id}`;
}

function sameMatch(row: ExpectationMatchRow, match: ExpectationMatch): boolean {
  return (
    Number(row.amount) === match.amount &&
    row.rule === match.rule &&
    Number(row.late) === (match.late ? 1 : 0) &&
    row.settled_at === match.settledAt
  );
}

function sameBreak(row: ExpectationBreakRow, found: ExpectationBreak): boolean {
  return (
    row.explanation === found.explanation &&
    row.suggested_action === found.suggestedAction &&
    (row.difference === null ? null : Number(row.difference)) === found.difference &&
    row.currency === found.currency
  );
}

/** The history rows a change of state writes (`matched`, `unmatched`, `overdue`). */
function changesOf(
  before: { state: ExpectationState; amount: number },
  after: { state: ExpectationState; amount: number },
): ExpectationHistoryTable['change'][] {
  const paid = (state: ExpectationState) => state === 'matched' || state === 'partially_matched';
  const changes: ExpectationHistoryTable['change'][] = [];
  if (paid(after.state)) {
    if (before.state !== after.state || before.amount !== after.amount) changes.push('matched');
  } else {
    if (paid(before.state)) changes.push('unmatched');
    if (after.state === 'overdue' && before.state !== 'overdue') changes.push('overdue');
  }
  return changes;
}

/**
 * Applies an engine result inside the caller's transaction: matches inserted, changed or
 * deleted; breaks opened, updated or cleared by dedupe key (a break resolved by hand is never
 * touched); each expectation's state and matched amount updated, with a history row, only
 * when they change. Applying the same result twice writes nothing the second time.
 */
export async function applyMatchResult(
  trx: Executor,
  result: MatchResult,
  scope: MatchScope,
  now: string,
): Promise<MatchWrites> {
  const writes: MatchWrites = {
    matchesInserted: 0,
    matchesDeleted: 0,
    matchesUpdated: 0,
    expectationsChanged: 0,
    historyRows: 0,
    breaksOpened: 0,
    breaksUpdated: 0,
    breaksCleared: 0,
  };
  const stated = new Set(result.states.map((s) => s.expectation));
  const ids = scope.expectationIds.filter((id) => stated.has(id));

  // Matches.
  const existing = new Map<string, ExpectationMatchRow>();
  for (const chunk of chunksOf(ids)) {
    const rows = await trx
      .selectFrom('expectation_matches')
      .selectAll()
      .where('expectation', 'in', chunk)
      .execute();
    for (const row of rows)
      existing.set(matchKey(Number(row.expectation), row.item_kind, row.item_id), row);
  }
  const inserts: unknown[][] = [];
  for (const match of result.matches) {
    const key = matchKey(match.expectation, match.itemKind, match.itemId);
    const row = existing.get(key);
    existing.delete(key);
    if (row === undefined) {
      inserts.push([
        match.expectation,
        match.itemKind,
        match.itemId,
        match.amount,
        match.rule,
        match.late ? 1 : 0,
        match.settledAt,
        now,
      ]);
    } else if (!sameMatch(row, match)) {
      await trx
        .updateTable('expectation_matches')
        .set({
          amount: match.amount,
          rule: match.rule,
          late: match.late ? 1 : 0,
          settled_at: match.settledAt,
          matched_at: now,
        })
        .where('id', '=', row.id)
        .execute();
      writes.matchesUpdated++;
    }
  }
  for (const chunk of chunksOf([...existing.values()].map((row) => row.id))) {
    await trx.deleteFrom('expectation_matches').where('id', 'in', chunk).execute();
  }
  writes.matchesDeleted = existing.size;
  await runBulk(trx, MATCH_INSERT, inserts);
  writes.matchesInserted = inserts.length;

  // States, matched amounts and their history.
  const current = new Map<number, { state: ExpectationState; amount: number; version: number }>();
  for (const chunk of chunksOf(ids)) {
    const rows = await trx
      .selectFrom('expectations')
      .select(['id', 'state', 'matched_amount', 'version'])
      .where('id', 'in', chunk)
      .execute();
    for (const row of rows) {
      current.set(Number(row.id), {
        state: row.state,
        amount: Number(row.matched_amount),
        version: row.version,
      });
    }
  }
  const changed: { id: number; state: ExpectationState; amount: number }[] = [];
  const history: unknown[][] = [];
  for (const outcome of result.states) {
    const before = current.get(outcome.expectation);
    // Closed by hand since it was read: left alone.
    if (
      before === undefined ||
      before.state === 'cancelled' ||
      before.state === 'resolved_manually'
    )
      continue;
    const after = { state: outcome.state, amount: outcome.matchedAmount };
    if (before.state === after.state && before.amount === after.amount) continue;
    changed.push({ id: outcome.expectation, ...after });
    for (const change of changesOf(before, after)) {
      history.push([
        outcome.expectation,
        before.version,
        change,
        MATCHING,
        null,
        JSON.stringify({ state: before.state, matched_amount: before.amount }),
        JSON.stringify({ state: after.state, matched_amount: after.amount }),
        now,
      ]);
    }
  }
  for (const chunk of chunksOf(changed)) {
    // One statement per chunk: CASE over the ids, so 100,000 changes are 200 statements.
    const stateCase = sql.join(
      chunk.map((c) => sql`when ${c.id} then ${c.state}`),
      sql` `,
    );
    const amountCase = sql.join(
      chunk.map((c) => sql`when ${c.id} then cast(${c.amount} as bigint)`),
      sql` `,
    );
    await sql`update expectations set state = case id ${stateCase} end, matched_amount = case id ${amountCase} end, updated_at = ${now} where id in (${sql.join(chunk.map((c) => c.id))})`.execute(
      trx,
    );
  }
  writes.expectationsChanged = changed.length;
  await runBulk(trx, HISTORY_INSERT, history);
  writes.historyRows = history.length;

  // Breaks, by dedupe key.
  const breaks = new Map<string, ExpectationBreakRow>();
  for (const chunk of chunksOf(ids)) {
    const rows = await trx
      .selectFrom('expectation_breaks')
      .selectAll()
      .where('expectation', 'in', chunk)
      .execute();
    for (const row of rows) breaks.set(row.dedupe_key, row);
  }
  const itemIds = [...new Set([...scope.itemKeys].map((key) => key.slice(key.indexOf('/') + 1)))];
  for (const chunk of chunksOf(itemIds)) {
    const rows = await trx
      .selectFrom('expectation_breaks')
      .selectAll()
      .where('environment', '=', scope.environment)
      .where('expectation', 'is', null)
      .where('item_id', 'in', chunk)
      .execute();
    for (const row of rows) {
      if (scope.itemKeys.has(`${row.item_kind}/${row.item_id}`)) breaks.set(row.dedupe_key, row);
    }
  }
  const newBreaks: unknown[][] = [];
  for (const found of result.breaks) {
    const row = breaks.get(found.dedupeKey);
    breaks.delete(found.dedupeKey);
    if (row === undefined) {
      newBreaks.push([
        scope.environment,
        found.expectation,
        found.itemKind,
        found.itemId,
        found.kind,
        found.difference,
        found.currency,
        found.explanation,
        found.suggestedAction,
        'open',
        found.dedupeKey,
        now,
        now,
      ]);
      continue;
    }
    const byHand = row.state === 'resolved' && row.resolved_by !== MATCHING;
    if (byHand || (row.state === 'open' && sameBreak(row, found))) continue;
    // Found again: reopened if matching had cleared it, reworded if its content changed.
    await trx
      .updateTable('expectation_breaks')
      .set({
        explanation: found.explanation,
        suggested_action: found.suggestedAction,
        difference: found.difference,
        currency: found.currency,
        state: 'open',
        resolved_by: null,
        resolved_at: null,
        resolution_reason: null,
        updated_at: now,
      })
      .where('id', '=', row.id)
      .execute();
    writes.breaksUpdated++;
  }
  await runBulk(trx, BREAK_INSERT, newBreaks);
  writes.breaksOpened = newBreaks.length;
  const cleared = [...breaks.values()].filter((row) => row.state === 'open').map((row) => row.id);
  for (const chunk of chunksOf(cleared)) {
    await trx
      .updateTable('expectation_breaks')
      .set({
        state: 'resolved',
        resolved_by: MATCHING,
        resolved_at: now,
        resolution_reason: CLEARED,
        updated_at: now,
      })
      .where('id', 'in', chunk)
      .execute();
  }
  writes.breaksCleared = cleared.length;
  return writes;
}
