import type { MatchableExpectation, SettledItem } from './match-types.ts';

// The one order the engine works in, so that its result never depends on the order of its
// input: items by settlement time, kind and id; expectations by window end and the merchant's id.

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function compareItems(a: SettledItem, b: SettledItem): number {
  return (
    compareText(a.settledAt, b.settledAt) || compareText(a.kind, b.kind) || compareText(a.id, b.id)
  );
}

export function compareExpectations(a: MatchableExpectation, b: MatchableExpectation): number {
  return (
    compareText(a.window_to, b.window_to) ||
    compareText(a.expectation_id, b.expectation_id) ||
    a.id - b.id
  );
}

export function itemKey(item: { readonly kind: string; readonly id: string }): string {
  return `${item.kind}/${item.id}`;
}
