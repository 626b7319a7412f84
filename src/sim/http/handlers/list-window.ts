import { DEFAULT_PAGE, DEFAULT_PER_PAGE, defaultFrom } from '../../../upstream/contract/index.ts';
import type { ItemKind, Mode } from '../../engine/sim-resources.ts';
import type { SimItem, SimStore } from '../../engine/sim-store.ts';
import type { SeededRandom } from '../../engine/seeded-random.ts';
import type { ListOrder } from '../../faults/fault-settings.ts';

export interface ListWindow {
  from?: string | undefined;
  to?: string | undefined;
  page?: number | undefined;
  perPage?: number | undefined;
}

/** Sorts a list response the way the `listOrder` fault setting says (ties by id). */
export function orderItems<T extends SimItem>(
  items: T[],
  order: ListOrder,
  random: SeededRandom,
): T[] {
  if (order === 'shuffled') {
    for (let i = items.length - 1; i > 0; i -= 1) {
      const j = random.int(0, i);
      [items[i], items[j]] = [items[j] as T, items[i] as T];
    }
    return items;
  }
  const field = order === 'updatedAt-desc' ? 'updatedAt' : 'createdAt';
  return sortByTime(items, field, order === 'createdAt-asc' ? 1 : -1);
}

function sortByTime<T extends SimItem>(
  items: T[],
  field: 'createdAt' | 'updatedAt',
  sign: 1 | -1,
): T[] {
  const timeOf = (item: SimItem) =>
    (item.resource as { createdAt: string; updatedAt?: string })[field] ?? '';
  const compare = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  return items.sort((a, b) => sign * (compare(timeOf(a), timeOf(b)) || compare(a.key, b.key)));
}

function sortOldestFirst<T extends SimItem>(items: T[]): T[] {
  return sortByTime(items, 'createdAt', 1);
}

/** The bounds of the documented list window as ISO strings (defaults: month start .. now). */
export function windowBounds(
  window: ListWindow,
  nowMs: number,
): { fromIso: string; toIso: string } {
  const from = window.from === undefined ? defaultFrom(new Date(nowMs)) : new Date(window.from);
  const to = window.to === undefined ? new Date(nowMs) : new Date(window.to);
  return { fromIso: from.toISOString(), toIso: to.toISOString() };
}

/**
 * One page of the documented list window: `from` (default: first day of the current month,
 * UTC) and `to` (default: now) both inclusive on `createdAt`; page 1 and 10 per page by
 * default. `inWindow` holds the matching items oldest first.
 */
export function pageOf<T extends SimItem>(
  inWindow: T[],
  window: ListWindow,
  order: ListOrder,
  random: SeededRandom,
): T[] {
  const page = window.page ?? DEFAULT_PAGE;
  const perPage = window.perPage ?? DEFAULT_PER_PAGE;
  const start = (page - 1) * perPage;
  if (order === 'createdAt-asc') return inWindow.slice(start, start + perPage);
  if (order === 'createdAt-desc') {
    const end = Math.max(0, inWindow.length - start);
    return inWindow.slice(Math.max(0, end - perPage), end).reverse();
  }
  return orderItems(inWindow, order, random).slice(start, start + perPage);
}

/** Items of `kind` in `mode` (both modes when undefined) created inside the window, oldest first. */
export function itemsInWindow<K extends ItemKind>(
  store: SimStore,
  kind: K,
  mode: Mode | undefined,
  window: ListWindow,
  nowMs: number,
): SimItem<K>[] {
  const { fromIso, toIso } = windowBounds(window, nowMs);
  if (mode !== undefined) return store.createdBetween(kind, mode, fromIso, toIso);
  const both = [
    ...store.createdBetween(kind, 'sandbox', fromIso, toIso),
    ...store.createdBetween(kind, 'live', fromIso, toIso),
  ];
  return sortOldestFirst(both);
}

/** Keeps the items of a window that were found through an index (oldest first, in the window). */
export function filterToWindow<T extends SimItem>(
  items: readonly T[],
  mode: Mode | undefined,
  window: ListWindow,
  nowMs: number,
): T[] {
  const { fromIso, toIso } = windowBounds(window, nowMs);
  const inside = items.filter((item) => {
    const createdAt = (item.resource as { createdAt: string }).createdAt;
    return (mode === undefined || item.mode === mode) && createdAt >= fromIso && createdAt <= toIso;
  });
  return sortOldestFirst(inside);
}
