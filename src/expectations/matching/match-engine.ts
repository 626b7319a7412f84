import { compareExpectations, compareItems, itemKey } from './canonical-order.ts';
import { ItemIndex } from './item-index.ts';
import {
  amountMismatchBreak,
  currencyMismatchBreak,
  duplicateBreak,
  lateBreak,
  missingBreak,
  reversedAfterMatchBreak,
  unexpectedBreak,
} from './match-breaks.ts';
import type {
  ExpectationBreak,
  ExpectationMatch,
  ExpectationStateOutcome,
  MatchableExpectation,
  MatchOptions,
  MatchResult,
  MatchRule,
  SettledItem,
} from './match-types.ts';

export const DEFAULT_MATCH_OPTIONS: MatchOptions = Object.freeze({ allExpected: 'off' });

const CLOSED_STATES = new Set(['cancelled', 'resolved_manually']);

/** Case-insensitive, `*` for any run of characters, the whole description. */
const patterns = new Map<string, RegExp>();
function descriptionMatches(pattern: string, description: string | null): boolean {
  let regex = patterns.get(pattern);
  if (regex === undefined) {
    const body = pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*');
    regex = new RegExp(`^${body}$`, 'is');
    patterns.set(pattern, regex);
  }
  return description !== null && regex.test(description);
}

function kindAllowed(e: MatchableExpectation, item: SettledItem): boolean {
  return (
    item.direction === e.direction && (e.item_kinds === null || e.item_kinds.includes(item.kind))
  );
}

/** Settled minus the nearer bound; 0 within the bounds. */
function outsideBounds(e: MatchableExpectation, amount: number): number {
  if (amount < e.amount_min) return amount - e.amount_min;
  if (amount > e.amount_max) return amount - e.amount_max;
  return 0;
}

function coversDirection(option: MatchOptions['allExpected'], direction: 'in' | 'out'): boolean {
  return option === 'both' || option === direction;
}

/**
 * Matches settled items to expectations (docs/expectations.md, "Matching"). Pure: the same
 * expectations, items and `now` give the same result whatever their order, because both are
 * put in the canonical order first and every tie is broken by it.
 *
 * Rules, in order: `id` (the expectation names the item), `reference` (the merchant's
 * reference; with `allow_split` every item with it adds up), the many-to-one groups
 * (`match_group`: one item whose reference is the group's, or whose amount is the sum of the
 * group's exact amounts), then `amount_window` (currency, amount, window and the optional
 * filters), greedy. An item pays one expectation, or the members of one group. An expectation
 * that names an item id or a reference is matched by that field only.
 */
export function matchExpectations(
  expectations: readonly MatchableExpectation[],
  settled: readonly SettledItem[],
  now: string,
  options: MatchOptions = DEFAULT_MATCH_OPTIONS,
): MatchResult {
  const unique = new Map<string, SettledItem>();
  for (const item of settled) unique.set(itemKey(item), item);
  const items = [...unique.values()].sort(compareItems);
  const active = expectations.filter((e) => !CLOSED_STATES.has(e.state)).sort(compareExpectations);
  const index = new ItemIndex(items);

  /** Items a rule took, by item key: matched, or set aside as a duplicate. */
  const claimed = new Set<string>();
  const matchesOf = new Map<number, ExpectationMatch[]>();
  const breaks: ExpectationBreak[] = [];
  const free = (item: SettledItem) => !claimed.has(itemKey(item));

  const addMatch = (
    e: MatchableExpectation,
    item: SettledItem,
    amount: number,
    rule: MatchRule,
  ) => {
    claimed.add(itemKey(item));
    const late = item.settledAt > e.window_to;
    const list = matchesOf.get(e.id) ?? [];
    list.push({
      expectation: e.id,
      itemKind: item.kind,
      itemId: item.id,
      amount,
      sameCurrency: item.currency === e.currency,
      rule,
      late,
      settledAt: item.settledAt,
    });
    matchesOf.set(e.id, list);
    if (late) breaks.push(lateBreak(e, item));
  };

  /** One item for one expectation: the currency and the amount are checked. */
  const matchOne = (e: MatchableExpectation, item: SettledItem, rule: MatchRule) => {
    addMatch(e, item, item.amount, rule);
    if (item.currency !== e.currency) {
      breaks.push(currencyMismatchBreak(e, item));
      return;
    }
    const difference = outsideBounds(e, item.amount);
    if (difference !== 0) breaks.push(amountMismatchBreak(e, item, item.amount, difference, false));
  };

  const single = active.filter((e) => e.match_group === null);

  // a. `id`: the expectation names the item.
  for (const e of single) {
    if (e.item_id === null) continue;
    const item = index.byId.get(e.item_id)?.find(free);
    if (item !== undefined) matchOne(e, item, 'id');
  }

  // b. `reference`: expectations sharing a reference take its items in canonical order.
  const byReference = new Map<string, MatchableExpectation[]>();
  for (const e of single) {
    if (e.item_id !== null || e.reference === null) continue;
    const list = byReference.get(e.reference) ?? [];
    list.push(e);
    byReference.set(e.reference, list);
  }
  for (const [reference, sharing] of byReference) {
    const candidates = index.byReference.get(reference) ?? [];
    let lastSingle: { e: MatchableExpectation; first: SettledItem } | undefined;
    sharing.forEach((e, position) => {
      const last = position === sharing.length - 1;
      const mine = candidates.filter((item) => free(item) && kindAllowed(e, item));
      if (!e.allow_split) {
        const first = mine[0];
        if (first === undefined) return;
        matchOne(e, first, 'reference');
        lastSingle = { e, first };
        return;
      }
      let sum = 0;
      let tipped: SettledItem | undefined;
      for (const item of mine) {
        if (!last && sum >= e.amount_min) break;
        addMatch(e, item, item.amount, 'reference');
        if (item.currency !== e.currency) {
          breaks.push(currencyMismatchBreak(e, item));
          continue;
        }
        sum += item.amount;
        if (tipped === undefined && sum > e.amount_max) tipped = item;
      }
      if (tipped !== undefined) {
        breaks.push(amountMismatchBreak(e, tipped, sum, sum - e.amount_max, true));
      }
    });
    // A second item with the reference of an expectation that wanted one.
    if (lastSingle !== undefined) {
      const { e, first } = lastSingle;
      for (const item of candidates) {
        if (!free(item) || !kindAllowed(e, item)) continue;
        claimed.add(itemKey(item));
        breaks.push(duplicateBreak(e, item, first));
      }
    }
  }

  // Many-to-one: expectations sharing a match group are paid together by one item.
  const groups = new Map<string, MatchableExpectation[]>();
  for (const e of active) {
    if (e.match_group === null) continue;
    const list = groups.get(e.match_group) ?? [];
    list.push(e);
    groups.set(e.match_group, list);
  }
  for (const [group, members] of groups) {
    const allow = (item: SettledItem) => free(item) && members.every((e) => kindAllowed(e, item));
    const named = members.find((e) => e.item_id !== null)?.item_id ?? null;
    let rule: MatchRule = 'id';
    let item = named === null ? undefined : index.byId.get(named)?.find(allow);
    if (named === null) {
      rule = 'reference';
      item = index.byReference.get(group)?.find(allow);
    }
    const head = members[0]!;
    if (
      named === null &&
      item === undefined &&
      members.every((e) => e.amount_min === e.amount_max && e.currency === head.currency)
    ) {
      rule = 'amount_window';
      const sum = members.reduce((total, e) => total + e.amount_min, 0);
      const from = members.reduce((min, e) => (e.window_from < min ? e.window_from : min), '~');
      const to = members.reduce((max, e) => (e.window_to > max ? e.window_to : max), '');
      // Settled within one member's window at least (the span alone would let a group of
      // windows far apart take an item settled between them).
      item = index.firstInWindow(
        head,
        sum,
        sum,
        from,
        to,
        (candidate) =>
          allow(candidate) &&
          members.some(
            (e) => e.window_from <= candidate.settledAt && candidate.settledAt <= e.window_to,
          ),
      );
    }
    if (item !== undefined) payGroup(members, item, rule);
  }

  function payGroup(members: MatchableExpectation[], item: SettledItem, rule: MatchRule) {
    // Each member gets its minimum, then up to its maximum in order; what is left over goes to
    // the last one, and a shortfall is taken from the last ones first.
    const shares = members.map((e) => e.amount_min);
    let rest = item.amount - shares.reduce((total, share) => total + share, 0);
    for (let i = 0; i < members.length && rest > 0; i++) {
      const room = Math.min(rest, members[i]!.amount_max - shares[i]!);
      shares[i] = shares[i]! + room;
      rest -= room;
    }
    if (rest > 0) shares[shares.length - 1] = shares.at(-1)! + rest;
    for (let i = members.length - 1; i >= 0 && rest < 0; i--) {
      const taken = Math.min(-rest, shares[i]!);
      shares[i] = shares[i]! - taken;
      rest += taken;
    }
    members.forEach((e, i) => {
      const share = shares[i]!;
      if (share === 0) return;
      addMatch(e, item, share, rule);
      if (item.currency !== e.currency) breaks.push(currencyMismatchBreak(e, item));
      else {
        const difference = outsideBounds(e, share);
        if (difference !== 0) breaks.push(amountMismatchBreak(e, item, share, difference, false));
      }
    });
    claimed.add(itemKey(item));
  }

  // c. `amount_window`: greedy, in canonical order.
  for (const e of single) {
    if (e.item_id !== null || e.reference !== null) continue;
    const item = index.firstInWindow(
      e,
      e.amount_min,
      e.amount_max,
      e.window_from,
      e.window_to,
      (candidate) =>
        free(candidate) &&
        kindAllowed(e, candidate) &&
        (e.counterparty === null || e.counterparty === candidate.counterparty) &&
        (e.purchase_reference === null || e.purchase_reference === candidate.purchaseReference) &&
        (e.description_pattern === null ||
          descriptionMatches(e.description_pattern, candidate.description)),
    );
    if (item !== undefined) addMatch(e, item, item.amount, 'amount_window');
  }

  // States, and the breaks a state implies.
  const states: ExpectationStateOutcome[] = [];
  const matches: ExpectationMatch[] = [];
  const matchedBy = new Map<string, MatchableExpectation[]>();
  for (const e of active) {
    const own = (matchesOf.get(e.id) ?? []).sort((a, b) =>
      compareItems(
        unique.get(`${a.itemKind}/${a.itemId}`)!,
        unique.get(`${b.itemKind}/${b.itemId}`)!,
      ),
    );
    matches.push(...own);
    for (const match of own) {
      const key = `${match.itemKind}/${match.itemId}`;
      matchedBy.set(key, [...(matchedBy.get(key) ?? []), e]);
    }
    const paid = own.reduce((total, m) => (m.sameCurrency ? total + m.amount : total), 0);
    let state: ExpectationStateOutcome['state'];
    if (paid > 0) state = paid >= e.amount_min ? 'matched' : 'partially_matched';
    else if (e.window_to < now) {
      state = 'overdue';
      if (own.length === 0) breaks.push(missingBreak(e));
    } else state = 'open';
    states.push({ expectation: e.id, state, matchedAmount: paid });
  }

  // Refunds of matched items, and items nobody claims.
  for (const item of items) {
    if (item.originalId !== null) {
      const originalKind = item.kind === 'refund' ? 'transfer' : 'payment_intent';
      const key = `${originalKind}/${item.originalId}`;
      const reversed = matchedBy.get(key);
      if (reversed !== undefined && !claimed.has(itemKey(item))) {
        for (const e of reversed) breaks.push(reversedAfterMatchBreak(e, unique.get(key)!, item));
        continue;
      }
    }
    if (!claimed.has(itemKey(item)) && coversDirection(options.allExpected, item.direction)) {
      breaks.push(unexpectedBreak(item));
    }
  }

  breaks.sort((a, b) => (a.dedupeKey < b.dedupeKey ? -1 : a.dedupeKey > b.dedupeKey ? 1 : 0));
  return { matches, states, breaks };
}
