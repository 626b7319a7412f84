import { defaultFrom, type PaymentIntent, type Transfer } from './contract/index.ts';
import { toIsoUtc } from './query-string.ts';
import type { QueryInput, RequestOptions, UpstreamClient } from './upstream-client.ts';

export type WindowedOperationId = 'listPaymentIntents' | 'listTransfers';
export type WindowItem<Id extends WindowedOperationId> = Id extends 'listPaymentIntents'
  ? PaymentIntent
  : Transfer;

export interface WindowWalkOptions<Id extends WindowedOperationId> extends RequestOptions {
  /**
   * Inclusive lower bound. @defaultValue first day of the current month, 00:00 UTC, by the
   * client's clock (`now` of its options)
   */
  from?: Date | string;
  /** Inclusive upper bound, frozen when the walk starts. @defaultValue now, by the client's clock */
  to?: Date | string;
  /** Items asked per request. @defaultValue 100 */
  perPage?: number;
  /** Other filters of the operation (`reference`, `customerReference`, …). */
  filters?: Omit<QueryInput<Id>, 'from' | 'to' | 'page' | 'perPage'>;
  /** Re-walks of a one-millisecond window that holds more than a page. @defaultValue 3 */
  maxRewalks?: number;
}

/** One answer of the walk: the sub-window asked and the items not seen before. */
export interface WindowPage<Id extends WindowedOperationId> {
  from: string;
  to: string;
  page: number;
  items: WindowItem<Id>[];
}

interface Span {
  fromMs: number;
  toMs: number;
}

/**
 * Walks a frozen `from`/`to` window of `GET /payment-intents` or `GET /transfers` and yields
 * every item in it exactly once, whatever order the service sorts by and whatever is created or
 * updated meanwhile.
 *
 * Why it is complete: a page boundary can only shift between two requests, so the walk never
 * relies on page 2 following page 1. It asks for page 1 of a sub-window; an answer shorter than
 * a page is the whole sub-window, read in one response. A full answer splits the sub-window in
 * two halves (at millisecond resolution) and reads each. The leaves partition the window, so
 * every item whose timestamp lies in the window is in exactly one leaf and comes back in that
 * leaf's single response; ids are de-duplicated across answers anyway. Items created after the
 * walk starts carry a timestamp after the frozen `to` and are out of the window.
 *
 * The one corner that falls back to paging: more than a page of items in one millisecond. Those
 * pages are re-walked until a walk brings nothing new (at most `maxRewalks` times).
 *
 * A service that caps `perPage` below the request would make a full page look short; the walk
 * detects that by probing page 2 whenever a short page is longer than any short page proven
 * complete so far, and then treats the cap as the page size.
 */
export async function* walkWindowPages<Id extends WindowedOperationId>(
  client: UpstreamClient,
  operationId: Id,
  options: WindowWalkOptions<Id> = {},
): AsyncGenerator<WindowPage<Id>> {
  const now = client.options.now();
  const fromMs = toMs(options.from ?? defaultFrom(now), 'from');
  const toMsBound = toMs(options.to ?? now, 'to');
  const perPage = options.perPage ?? 100;
  const maxRewalks = options.maxRewalks ?? 3;
  const seen = new Set<string>();
  let pageSize = perPage;
  let provenShortUpTo = 0;

  const fetchPage = async (span: Span, page: number): Promise<WindowItem<Id>[]> => {
    const query = {
      ...options.filters,
      from: new Date(span.fromMs),
      to: new Date(span.toMs),
      page,
      perPage,
    };
    const signal = options.signal ? { signal: options.signal } : {};
    const items =
      operationId === 'listPaymentIntents'
        ? await client.listPaymentIntents(query as QueryInput<'listPaymentIntents'>, signal)
        : await client.listTransfers(query as QueryInput<'listTransfers'>, signal);
    return items as WindowItem<Id>[];
  };

  const fresh = (span: Span, page: number, items: WindowItem<Id>[]): WindowPage<Id> => {
    const unseen = items.filter((item) => !seen.has(item.id));
    for (const item of unseen) seen.add(item.id);
    return {
      from: new Date(span.fromMs).toISOString(),
      to: new Date(span.toMs).toISOString(),
      page,
      items: unseen,
    };
  };

  if (toMsBound < fromMs) return;
  const stack: Span[] = [{ fromMs, toMs: toMsBound }];
  while (stack.length > 0) {
    const span = stack.pop()!;
    const first = await fetchPage(span, 1);
    let full = first.length >= pageSize;
    if (!full && first.length > provenShortUpTo) {
      const second = await fetchPage(span, 2);
      if (second.length > 0) {
        pageSize = first.length;
        full = true;
        yield fresh(span, 2, second);
      } else {
        provenShortUpTo = first.length;
      }
    }
    yield fresh(span, 1, first);
    if (!full) continue;
    if (span.toMs > span.fromMs) {
      const mid = Math.floor((span.fromMs + span.toMs) / 2);
      stack.push({ fromMs: mid + 1, toMs: span.toMs }, { fromMs: span.fromMs, toMs: mid });
      continue;
    }
    for (let walk = 0; walk <= maxRewalks; walk += 1) {
      let foundNew = false;
      for (let page = walk === 0 ? 2 : 1; ; page += 1) {
        const items = await fetchPage(span, page);
        const result = fresh(span, page, items);
        if (result.items.length > 0) {
          foundNew = true;
          yield result;
        }
        if (items.length < pageSize) break;
      }
      if (!foundNew && walk > 0) break;
    }
  }
}

/** The items of {@link walkWindowPages}, one by one. */
export async function* walkWindow<Id extends WindowedOperationId>(
  client: UpstreamClient,
  operationId: Id,
  options: WindowWalkOptions<Id> = {},
): AsyncGenerator<WindowItem<Id>> {
  for await (const page of walkWindowPages(client, operationId, options)) yield* page.items;
}

function toMs(value: Date | string, name: string): number {
  const iso = toIsoUtc(value);
  if (iso === undefined) throw new RangeError(`${name} must be a date or ISO 8601 datetime`);
  return Date.parse(iso);
}
