import { sql, type Kysely } from 'kysely';
import { chunksOf, dialectOfDb, type Database, type Executor } from '../../db/index.ts';
import { settledItems } from '../../ledger/index.ts';
import { itemKey } from './canonical-order.ts';
import { matchExpectations } from './match-engine.ts';
import { neighbourhoodOf, type Neighbourhood } from './match-neighbourhood.ts';
import { applyMatchResult, type MatchWrites } from './match-store.ts';
import { matchableExpectation } from './matchable-expectation.ts';
import type { AllExpectedOption } from './match-types.ts';

/** What every matching run needs, resolved once where the process is assembled. */
export interface MatchingSettings {
  /** The environment whose expectations are matched (PAYSYNC_ENVIRONMENT). */
  readonly environment: string;
  /** @defaultValue `off` (PAYSYNC_EXPECTATIONS_ALL_EXPECTED) */
  readonly allExpected: AllExpectedOption;
}

/**
 * Serialises matching runs of one environment until the caller commits: two workers settling
 * items at once must not both give one item to two expectations. PostgreSQL takes an advisory
 * lock for the transaction; SQLite runs one write transaction at a time anyway. Taken before
 * the neighbourhood is read, so each run sees the one before it.
 */
async function lockMatching(trx: Executor, environment: string): Promise<void> {
  if (dialectOfDb(trx) === 'postgres') {
    await sql`select pg_advisory_xact_lock(hashtext(${`paysync-expectations:${environment}`}))`.execute(
      trx,
    );
  }
}

async function run(
  trx: Executor,
  neighbourhood: Neighbourhood,
  now: string,
  settings: MatchingSettings,
): Promise<MatchWrites> {
  const result = matchExpectations(neighbourhood.expectations, neighbourhood.items, now, settings);
  return applyMatchResult(
    trx,
    result,
    {
      environment: settings.environment,
      expectationIds: neighbourhood.expectations.map((e) => e.id),
      itemKeys: new Set(neighbourhood.items.map(itemKey)),
    },
    now,
  );
}

const ACTIVE_STATES = ['open', 'partially_matched', 'matched', 'overdue'] as const;

async function hasActiveExpectations(db: Executor, environment: string): Promise<boolean> {
  const row = await db
    .selectFrom('expectations')
    .select('id')
    .where('environment', '=', environment)
    .where('state', 'in', [...ACTIVE_STATES])
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Matches items that just settled, in the caller's transaction (the sync pipeline's): reads
 * the neighbourhood they could change, runs the engine on it, applies the result. Items not
 * settled (or not in the mirror) are ignored.
 */
export async function matchSettledItems(
  trx: Executor,
  items: readonly { readonly kind: string; readonly id: string }[],
  now: string,
  settings: MatchingSettings,
): Promise<MatchWrites | undefined> {
  if (items.length === 0) return undefined;
  // The guard of the sync pipeline: one cheap query when the merchant has no expectations.
  if (settings.allExpected === 'off' && !(await hasActiveExpectations(trx, settings.environment))) {
    return undefined;
  }
  await lockMatching(trx, settings.environment);
  const wanted = new Set(items.map(itemKey));
  const settled = (await settledItems(trx, { ids: items.map((item) => item.id) })).filter((item) =>
    wanted.has(itemKey(item)),
  );
  if (settled.length === 0) return undefined;
  const neighbourhood = await neighbourhoodOf(trx, settings.environment, { items: settled });
  if (neighbourhood.expectations.length === 0 && settings.allExpected === 'off') return undefined;
  return run(trx, neighbourhood, now, settings);
}

/** Matches expectations just added or changed (by expectations.id), in the caller's transaction. */
export async function matchExpectationsById(
  trx: Executor,
  ids: readonly number[],
  now: string,
  settings: MatchingSettings,
): Promise<MatchWrites | undefined> {
  await lockMatching(trx, settings.environment);
  const seed = [];
  for (const chunk of chunksOf([...new Set(ids)])) {
    const rows = await trx
      .selectFrom('expectations')
      .selectAll()
      .where('environment', '=', settings.environment)
      .where('id', 'in', chunk)
      .where('state', 'in', [...ACTIVE_STATES])
      .execute();
    seed.push(...rows.map(matchableExpectation));
  }
  if (seed.length === 0) return undefined;
  const neighbourhood = await neighbourhoodOf(trx, settings.environment, { expectations: seed });
  return run(trx, neighbourhood, now, settings);
}

/**
 * Matches every expectation of the environment against every settled item, at once (a first
 * load, a rebuild, the benchmark). The same result as the incremental path.
 */
export async function matchAllExpectations(
  trx: Executor,
  now: string,
  settings: MatchingSettings,
): Promise<MatchWrites> {
  await lockMatching(trx, settings.environment);
  const rows = await trx
    .selectFrom('expectations')
    .selectAll()
    .where('environment', '=', settings.environment)
    .where('state', 'in', [...ACTIVE_STATES])
    .execute();
  const items = await settledItems(trx, { all: true });
  return run(trx, { expectations: rows.map(matchableExpectation), items }, now, settings);
}

const OVERDUE_BATCH = 500;

/** What one overdue check did. */
export interface OverdueCheck {
  /** Open expectations whose window had passed, matched once more. */
  readonly checked: number;
  /** Of those, how many are `overdue` now (the others were matched by an item at last). */
  readonly overdue: number;
}

/**
 * The scheduled check (the task `expectations`): open expectations whose window has passed are
 * matched once more and, when nothing pays them, become `overdue` with a `missing` break. One
 * transaction per batch of 500.
 */
export async function markOverdue(
  db: Kysely<Database>,
  now: string,
  settings: MatchingSettings,
): Promise<OverdueCheck> {
  let checked = 0;
  let overdue = 0;
  let after = 0;
  for (;;) {
    const rows = await db
      .selectFrom('expectations')
      .select('id')
      .where('environment', '=', settings.environment)
      .where('state', '=', 'open')
      .where('window_to', '<', now)
      .where('id', '>', after)
      .orderBy('id')
      .limit(OVERDUE_BATCH)
      .execute();
    if (rows.length === 0) return { checked, overdue };
    const ids = rows.map((row) => Number(row.id));
    overdue += await db.transaction().execute(async (trx) => {
      await matchExpectationsById(trx, ids, now, settings);
      const became = await trx
        .selectFrom('expectations')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('id', 'in', ids)
        .where('state', '=', 'overdue')
        .executeTakeFirstOrThrow();
      return Number(became.n);
    });
    checked += ids.length;
    after = ids.at(-1)!;
  }
}
