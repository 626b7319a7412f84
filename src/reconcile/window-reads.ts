import type { Kysely } from 'kysely';
import type { Database } from '../db/index.ts';
import { latestInboxId, waitingResourcesOf, type WaitingResource } from '../inbox/index.ts';
import { mirrorCreationTimes } from '../ledger/index.ts';
import { reasonOf } from '../error-reason.ts';
import { walkWindowPages, type PaymentIntent, type Transfer } from '../upstream/index.ts';
import { applyFetched, type Fetched } from './apply-fetched.ts';
import { announceConsequences } from './book-consequences.ts';
import { windowReadPagesTotal, windowReadsTotal } from './reconcile-metrics.ts';
import type { ResolvedSyncDependencies } from './sync-dependencies.ts';
import { DEFAULT_WINDOW_READS, type WindowReadSettings } from './window-read-settings.ts';

/** The kinds the service lists by creation window (`GET /transfers`, `GET /payment-intents`). */
export type WindowKind = 'transfer' | 'payment_intent';

/** Slack past now on `to`, for a service clock running ahead of ours. */
const TO_SKEW_MS = 5_000;
/** Slack before the earliest creation time on `from`. */
const FROM_SKEW_MS = 1_000;
/** Waiting resources the planner looks at, at most. */
const MAX_WAITING = 5_000;

/** What a planner decided and what the read came to (for the metrics, logs and tests). */
export interface WindowReadOutcome {
  readonly kind: WindowKind;
  readonly outcome: 'too_few' | 'complete' | 'capped' | 'walked' | 'failed';
  readonly targets: number;
  readonly pages: number;
  readonly found: number;
  readonly applied: number;
}

const keyOf = (
  kind: WindowKind,
  item: { id?: string | undefined; reference?: string | undefined },
) => (item.id ? `id:${item.id}` : `ref:${item.reference ?? ''}`);

interface Target {
  readonly key: string;
  readonly createdMs: number;
}

/** The window reads running in this process, per database and kind: one at a time. */
const running = new WeakMap<Kysely<Database>, Map<WindowKind, Promise<WindowReadOutcome>>>();

/**
 * Items a page listed without all a read by id books (see listedInFull), per database: the
 * planner leaves them out of the next windows for {@link LEFT_TO_READS_MS}, so that their open
 * events do not set off window after window that lists them again without covering them.
 */
const leftToReads = new WeakMap<Kysely<Database>, Map<string, number>>();
const LEFT_TO_READS_MS = 5 * 60_000;
const LEFT_TO_READS_MAX = 10_000;

function leaveToReads(deps: ResolvedSyncDependencies, keys: readonly string[]): void {
  let left = leftToReads.get(deps.db);
  if (!left) leftToReads.set(deps.db, (left = new Map()));
  if (left.size + keys.length > LEFT_TO_READS_MAX) left.clear();
  const until = deps.now().getTime() + LEFT_TO_READS_MS;
  for (const key of keys) left.set(key, until);
}

function isLeftToReads(deps: ResolvedSyncDependencies, key: string, nowMs: number): boolean {
  const until = leftToReads.get(deps.db)?.get(key);
  return until !== undefined && until > nowMs;
}

/**
 * Covers the resources of `kind` that wait to be synced with the pages of one creation window,
 * when that is cheaper than reading them one by one (docs/processing.md, "Window reads").
 *
 * A batch calls this before its per-item reads; a batch that comes while a read of the same
 * kind runs in this process waits for that read instead of starting another. What the read
 * listed is applied page by page through `apply-fetched.ts` (the covering fetch of every item
 * it lists: the ledger, the consequences and the inbox rows received before the page was asked
 * for, in one transaction), so every guarantee of a sync holds. The batch then skips the items
 * the read covered and reads the rest one by one: an item the window missed costs one request,
 * never the item. Never throws: a failed read leaves everything to the per-item reads.
 */
export function coverByWindow(
  deps: ResolvedSyncDependencies,
  kind: WindowKind,
  settings: WindowReadSettings = DEFAULT_WINDOW_READS,
): Promise<WindowReadOutcome> {
  let reads = running.get(deps.db);
  if (!reads) running.set(deps.db, (reads = new Map()));
  const inFlight = reads.get(kind);
  if (inFlight) return inFlight;
  const read = readWindow(deps, kind, settings).finally(() => reads.delete(kind));
  reads.set(kind, read);
  return read;
}

async function readWindow(
  deps: ResolvedSyncDependencies,
  kind: WindowKind,
  settings: WindowReadSettings,
): Promise<WindowReadOutcome> {
  const none = { kind, targets: 0, pages: 0, found: 0, applied: 0 };
  let targets: Target[];
  try {
    targets = await plannedTargets(deps, kind, settings);
  } catch (error) {
    deps.logger.warn({ kind, reason: reasonOf(error) }, 'window read: planning failed');
    return count({ ...none, outcome: 'failed' }, deps);
  }
  if (targets.length < settings.minItems) return count({ ...none, outcome: 'too_few' }, deps);
  const nowMs = deps.now().getTime();
  let from = Math.min(...targets.map((target) => target.createdMs)) - FROM_SKEW_MS;
  const to = nowMs + TO_SKEW_MS;
  const oldest = nowMs - settings.maxAgeMs;
  const state: WalkState = {
    waiting: new Set(targets.map((target) => target.key)),
    maxPages: Math.max(1, Math.floor(targets.length * settings.pagesPerItem)),
    pages: 0,
    applied: 0,
  };
  let outcome = await walkSpan(deps, kind, settings, state, from, to);
  // A whole walk that missed some: they were created before `from` (their first event came
  // later after their creation than the hint's slack: webhooks delivered behind a backlog).
  // Earlier spans, each twice as long as the one before, until they are found, the pages run
  // out or the span reaches `maxAgeMs`: a few pages rather than a read per missed item.
  for (let span = settings.hintSlackMs; outcome === 'walked' && from > oldest; span *= 2) {
    const earlier = Math.max(oldest, from - span);
    outcome = await walkSpan(deps, kind, settings, state, earlier, from - 1);
    from = earlier;
  }
  const { waiting, pages, applied } = state;
  if (outcome === 'walked' && waiting.size === 0) outcome = 'complete';
  const result = {
    kind,
    outcome,
    targets: targets.length,
    pages,
    found: targets.length - waiting.size,
    applied,
  };
  deps.logger.debug(result, 'window read');
  return count(result, deps);
}

/** What the walks of one window read share: the targets not found yet and the pages spent. */
interface WalkState {
  readonly waiting: Set<string>;
  readonly maxPages: number;
  pages: number;
  applied: number;
}

/**
 * Walks one span of creation times, applying each page as it comes: `complete` once every
 * target is found, `capped` when the pages run out first, `walked` when the span is read whole
 * with targets still missing, `failed` when a request fails (the rest is read one by one).
 */
async function walkSpan(
  deps: ResolvedSyncDependencies,
  kind: WindowKind,
  settings: WindowReadSettings,
  state: WalkState,
  fromMs: number,
  toMs: number,
): Promise<WindowReadOutcome['outcome']> {
  let outcome: WindowReadOutcome['outcome'] = 'walked';
  const walk = walkWindowPages(
    deps.upstream,
    kind === 'transfer' ? 'listTransfers' : 'listPaymentIntents',
    { from: new Date(fromMs), to: new Date(toMs), perPage: settings.perPage },
  );
  // Each page is asked for while the one before it is applied (one page of read-ahead), so the
  // service's time and ours overlap. The inbox id a page covers is read before it is asked for.
  const ask = async () => {
    const upToId = await latestInboxId(deps.db);
    const fetchStartedAt = deps.now().toISOString();
    const next = walk.next();
    next.catch(() => undefined);
    return { upToId, fetchStartedAt, next };
  };
  try {
    let asked: ReturnType<typeof ask> | undefined = ask();
    while (asked) {
      const { upToId, fetchStartedAt, next } = await asked;
      const page = await next;
      asked = undefined;
      if (page.done) break;
      state.pages += 1;
      deps.metrics.inc(windowReadPagesTotal, { kind });
      const items = page.value.items as (Transfer | PaymentIntent)[];
      for (const item of items) {
        state.waiting.delete(keyOf(kind, { id: item.id }));
        state.waiting.delete(keyOf(kind, { reference: referenceOf(kind, item) }));
      }
      if (state.waiting.size === 0) outcome = 'complete';
      else if (state.pages >= state.maxPages) outcome = 'capped';
      else asked = ask();
      // What a list leaves out, a read of the item itself books: such items are left to it.
      const whole = items.filter((item) => listedInFull(kind, item));
      if (whole.length < items.length) {
        leaveToReads(
          deps,
          items
            .filter((item) => !listedInFull(kind, item))
            .flatMap((item) => [
              keyOf(kind, { id: item.id }),
              keyOf(kind, { reference: referenceOf(kind, item) }),
            ]),
        );
      }
      if (whole.length > 0) {
        const fetched = whole.map((item) => listedFetch(kind, item, fetchStartedAt, upToId));
        announceConsequences((await applyFetched(deps, fetched)).consequences);
        state.applied += whole.length;
      }
    }
  } catch (error) {
    deps.logger.warn(
      { kind, pages: state.pages, reason: reasonOf(error) },
      'window read failed; the items it did not cover are read one by one',
    );
    outcome = 'failed';
  } finally {
    await walk.return(undefined).catch(() => undefined);
  }
  if (outcome === 'walked' && state.waiting.size === 0) outcome = 'complete';
  return outcome;
}

/**
 * The waiting resources of `kind` a window could cover, each with its creation time: the
 * mirror's when it knows the item, else the arrival of its first event less the slack. Items
 * created before `maxAgeMs` ago are left to per-item reads, so one old item never stretches the
 * window over months of others; so are the items a page listed in part.
 */
async function plannedTargets(
  deps: ResolvedSyncDependencies,
  kind: WindowKind,
  settings: WindowReadSettings,
): Promise<Target[]> {
  const waiting: WaitingResource[] = await waitingResourcesOf(deps.db, kind, MAX_WAITING);
  if (waiting.length < settings.minItems) return [];
  const known = await mirrorCreationTimes(deps.db, kind, waiting);
  const nowMs = deps.now().getTime();
  const oldest = nowMs - settings.maxAgeMs;
  const targets: Target[] = [];
  for (const resource of waiting) {
    const key = keyOf(kind, resource);
    if (isLeftToReads(deps, key, nowMs)) continue;
    const createdAt = known.get(key);
    const createdMs =
      createdAt !== undefined
        ? Date.parse(createdAt)
        : Date.parse(resource.firstReceivedAt) - settings.hintSlackMs;
    if (Number.isFinite(createdMs) && createdMs >= oldest) targets.push({ key, createdMs });
  }
  return targets;
}

/**
 * Whether a listed item says all that a read of it would book. A list answer may leave out the
 * `code` of a payment intent's `lastPaymentFailure` (the interface: "present in retrieval
 * responses"), which the mirror books as the failure code; such an intent, and a failed one
 * without a code, is not covered by the page: the batch reads it by id. Found by the property
 * test of window reads (test/processing/window-reads-equivalence.db.test.ts).
 */
function listedInFull(kind: WindowKind, item: Transfer | PaymentIntent): boolean {
  if (kind !== 'payment_intent') return true;
  const intent = item as PaymentIntent;
  const failure = intent.lastPaymentFailure;
  if (failure && !failure.code) return false;
  return !(intent.status === 'failed' && !failure?.code);
}

function referenceOf(kind: WindowKind, item: Transfer | PaymentIntent): string {
  return kind === 'transfer'
    ? (item as Transfer).reference
    : (item as PaymentIntent).purchaseReference;
}

/** A listed item as the covering fetch of its resource. */
function listedFetch(
  kind: WindowKind,
  item: Transfer | PaymentIntent,
  fetchStartedAt: string,
  upToId: number,
): Fetched {
  const reference = referenceOf(kind, item);
  return {
    ref: { kind, id: item.id, reference, via: 'poll' },
    result: {
      states:
        kind === 'transfer'
          ? [{ kind, state: item as Transfer }]
          : [{ kind, state: item as PaymentIntent }],
      handle: { kind, id: item.id, reference },
    },
    fetchStartedAt,
    upToId,
  };
}

function count(result: WindowReadOutcome, deps: ResolvedSyncDependencies): WindowReadOutcome {
  deps.metrics.inc(windowReadsTotal, { kind: result.kind, outcome: result.outcome });
  return result;
}
