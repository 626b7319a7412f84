import { compareItems } from './canonical-order.ts';
import type { MatchableExpectation, SettledItem } from './match-types.ts';

/** Index of the first element of `sorted` for which `before` is false (binary search). */
function lowerBound<T>(sorted: readonly T[], before: (value: T) => boolean): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (before(sorted[mid]!)) low = mid + 1;
    else high = mid;
  }
  return low;
}

interface AmountBuckets {
  /** Distinct amounts, ascending. */
  readonly amounts: number[];
  /** Per amount, its items in canonical order (so by settlement time too). */
  readonly items: Map<number, SettledItem[]>;
}

/**
 * The settled items by id, by reference, and by direction + currency + amount, each list in
 * canonical order, so each rule finds its candidates without scanning every item.
 */
export class ItemIndex {
  readonly byId = new Map<string, SettledItem[]>();
  readonly byReference = new Map<string, SettledItem[]>();
  private readonly byAmount = new Map<string, AmountBuckets>();

  constructor(sortedItems: readonly SettledItem[]) {
    for (const item of sortedItems) {
      push(this.byId, item.id, item);
      if (item.reference !== null) push(this.byReference, item.reference, item);
      const key = `${item.direction}\u0000${item.currency}`;
      let buckets = this.byAmount.get(key);
      if (buckets === undefined) {
        buckets = { amounts: [], items: new Map() };
        this.byAmount.set(key, buckets);
      }
      let bucket = buckets.items.get(item.amount);
      if (bucket === undefined) {
        bucket = [];
        buckets.items.set(item.amount, bucket);
        buckets.amounts.push(item.amount);
      }
      bucket.push(item);
    }
    for (const buckets of this.byAmount.values()) buckets.amounts.sort((a, b) => a - b);
  }

  /**
   * The first item in canonical order of the expectation's direction and currency, with an
   * amount in [min, max], settled in [from, to], that `accept` takes.
   */
  firstInWindow(
    e: Pick<MatchableExpectation, 'direction' | 'currency'>,
    min: number,
    max: number,
    from: string,
    to: string,
    accept: (item: SettledItem) => boolean,
  ): SettledItem | undefined {
    const buckets = this.byAmount.get(`${e.direction}\u0000${e.currency}`);
    if (buckets === undefined) return undefined;
    let best: SettledItem | undefined;
    for (
      let i = lowerBound(buckets.amounts, (amount) => amount < min);
      i < buckets.amounts.length && buckets.amounts[i]! <= max;
      i++
    ) {
      const bucket = buckets.items.get(buckets.amounts[i]!)!;
      for (let j = lowerBound(bucket, (item) => item.settledAt < from); j < bucket.length; j++) {
        const item = bucket[j]!;
        if (item.settledAt > to) break;
        if (best !== undefined && compareItems(item, best) >= 0) break;
        if (accept(item)) {
          best = item;
          break;
        }
      }
    }
    return best;
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}
