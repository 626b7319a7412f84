import { chunksOf, type Executor } from '../../db/index.ts';
import {
  settledItems,
  type SettledItemRange,
  type SettledItemSelector,
} from '../../ledger/index.ts';
import { itemKey } from './canonical-order.ts';
import { matchableExpectation } from './matchable-expectation.ts';
import type { MatchableExpectation, SettledItem } from './match-types.ts';

const ACTIVE = ['open', 'partially_matched', 'matched', 'overdue'] as const;
/** A neighbourhood stops growing after this many rounds (it closes in one or two in practice). */
const MAX_ROUNDS = 25;

export interface Neighbourhood {
  readonly expectations: MatchableExpectation[];
  readonly items: SettledItem[];
}

/** Expectations that could take these items, or that hold them (or what they refund) now. */
async function expectationsFor(
  db: Executor,
  environment: string,
  items: readonly SettledItem[],
): Promise<MatchableExpectation[]> {
  const found = new Map<number, MatchableExpectation>();
  const base = () =>
    db
      .selectFrom('expectations')
      .selectAll()
      .where('environment', '=', environment)
      .where('state', 'in', [...ACTIVE]);
  const keep = (rows: Awaited<ReturnType<ReturnType<typeof base>['execute']>>) => {
    for (const row of rows) found.set(Number(row.id), matchableExpectation(row));
  };
  const ids = [
    ...new Set(items.flatMap((i) => (i.originalId === null ? [i.id] : [i.id, i.originalId]))),
  ];
  for (const chunk of chunksOf(ids)) {
    keep(await base().where('item_id', 'in', chunk).execute());
    const holders = await db
      .selectFrom('expectation_matches')
      .select('expectation')
      .where('item_id', 'in', chunk)
      .execute();
    const held = [...new Set(holders.map((h) => Number(h.expectation)))];
    for (const part of chunksOf(held)) keep(await base().where('id', 'in', part).execute());
  }
  const references = [
    ...new Set(items.flatMap((i) => (i.reference === null ? [] : [i.reference]))),
  ];
  for (const chunk of chunksOf(references)) {
    keep(
      await base()
        .where((eb) => eb.or([eb('reference', 'in', chunk), eb('match_group', 'in', chunk)]))
        .execute(),
    );
  }
  // By amount and window: one query per currency and direction over the candidates index
  // (environment, currency, direction, state, window_to), then each row checked against the
  // items themselves.
  const byMarket = new Map<string, SettledItem[]>();
  for (const item of items) {
    const key = `${item.currency} ${item.direction}`;
    byMarket.set(key, [...(byMarket.get(key) ?? []), item]);
  }
  for (const market of byMarket.values()) {
    const head = market[0]!;
    const earliest = market.reduce((min, i) => (i.settledAt < min ? i.settledAt : min), '~');
    const latest = market.reduce((max, i) => (i.settledAt > max ? i.settledAt : max), '');
    const largest = market.reduce((max, i) => Math.max(max, i.amount), 0);
    const rows = await base()
      .where('currency', '=', head.currency)
      .where('direction', '=', head.direction)
      .where('window_to', '>=', earliest)
      .where('window_from', '<=', latest)
      .where('amount_min', '<=', largest)
      .execute();
    for (const row of rows) {
      const e = matchableExpectation(row);
      const couldTake = market.some(
        (item) =>
          e.window_from <= item.settledAt &&
          item.settledAt <= e.window_to &&
          e.amount_min <= item.amount &&
          // A member of a group takes part in a sum larger than its own amount.
          (e.amount_max >= item.amount || e.match_group !== null),
      );
      if (couldTake) found.set(e.id, e);
    }
  }
  // A group is matched whole.
  const groups = [
    ...new Set([...found.values()].flatMap((e) => (e.match_group === null ? [] : [e.match_group]))),
  ];
  for (const chunk of chunksOf(groups))
    keep(await base().where('match_group', 'in', chunk).execute());
  return [...found.values()];
}

function rangesOf(expectations: readonly MatchableExpectation[]): SettledItemRange[] {
  const ranges: SettledItemRange[] = [];
  const groups = new Map<string, MatchableExpectation[]>();
  for (const e of expectations) {
    if (e.match_group !== null) {
      groups.set(e.match_group, [...(groups.get(e.match_group) ?? []), e]);
    } else if (e.item_id === null && e.reference === null) {
      ranges.push({
        direction: e.direction,
        currency: e.currency,
        settledFrom: e.window_from,
        settledTo: e.window_to,
        amountMin: e.amount_min,
        amountMax: e.amount_max,
      });
    }
  }
  for (const members of groups.values()) {
    const head = members[0]!;
    ranges.push({
      direction: head.direction,
      currency: head.currency,
      settledFrom: members.reduce((min, e) => (e.window_from < min ? e.window_from : min), '~'),
      settledTo: members.reduce((max, e) => (e.window_to > max ? e.window_to : max), ''),
      amountMin: members.reduce((sum, e) => sum + e.amount_min, 0),
      amountMax: members.reduce((sum, e) => sum + e.amount_max, 0),
    });
  }
  return ranges;
}

/** Items these expectations could take, hold now, or whose refunds could reverse them. */
async function itemsFor(
  db: Executor,
  expectations: readonly MatchableExpectation[],
  known: ReadonlyMap<string, SettledItem>,
): Promise<SettledItem[]> {
  const held: string[] = [];
  for (const chunk of chunksOf(expectations.map((e) => e.id))) {
    const rows = await db
      .selectFrom('expectation_matches')
      .select('item_id')
      .where('expectation', 'in', chunk)
      .execute();
    held.push(...rows.map((row) => row.item_id));
  }
  const selector: SettledItemSelector = {
    ids: [...held, ...expectations.flatMap((e) => (e.item_id === null ? [] : [e.item_id]))],
    references: expectations.flatMap((e) =>
      [e.reference, e.match_group].filter((v): v is string => v !== null),
    ),
    originalIds: [...held, ...[...known.values()].map((item) => item.id)],
    ranges: rangesOf(expectations),
  };
  return settledItems(db, selector);
}

/**
 * Everything that could change when these items settle or these expectations change: the
 * expectations that could take the items, the items those could take, and so on until nothing
 * new is found, so matching the neighbourhood gives what matching everything would.
 */
export async function neighbourhoodOf(
  db: Executor,
  environment: string,
  seed: { items?: readonly SettledItem[]; expectations?: readonly MatchableExpectation[] },
): Promise<Neighbourhood> {
  const items = new Map<string, SettledItem>();
  const expectations = new Map<number, MatchableExpectation>();
  let newItems = [...(seed.items ?? [])];
  let newExpectations = [...(seed.expectations ?? [])];
  for (const item of newItems) items.set(itemKey(item), item);
  for (const e of newExpectations) expectations.set(e.id, e);
  for (let round = 0; round < MAX_ROUNDS && newItems.length + newExpectations.length > 0; round++) {
    const foundExpectations = await expectationsFor(db, environment, newItems);
    const moreExpectations = foundExpectations.filter((e) => !expectations.has(e.id));
    for (const e of moreExpectations) expectations.set(e.id, e);
    const askFor = [...newExpectations, ...moreExpectations];
    const foundItems = askFor.length === 0 ? [] : await itemsFor(db, askFor, items);
    newItems = foundItems.filter((item) => !items.has(itemKey(item)));
    for (const item of newItems) items.set(itemKey(item), item);
    newExpectations = [];
    // Expectations found from the new items come next round; so do the items they take.
    if (newItems.length === 0) break;
  }
  return { expectations: [...expectations.values()], items: [...items.values()] };
}
