import type { Kysely } from 'kysely';
import type { Database } from '../db/index.ts';
import { refundIdsOf } from '../ledger/index.ts';
import type { Logger } from '../logger.ts';
import { enqueueSync, type Queues } from '../queues/enqueue.ts';
import { ForbiddenError, NotFoundError, type UpstreamClient } from '../upstream/index.ts';
import { reasonOf } from '../error-reason.ts';
import { advanceCheckpoint, readCheckpoint } from './checkpoint.repository.ts';

export interface PaymentRefundProbeDependencies {
  readonly db: Kysely<Database>;
  readonly upstream: Pick<UpstreamClient, 'getPaymentRefundStatus'>;
  readonly queues: Queues;
  readonly logger: Logger;
  /** `live` or `sandbox`: the probe's watermark is kept per environment. */
  readonly environment: string;
  readonly now: () => Date;
}

export interface PaymentRefundProbeOptions {
  /** Status requests one sweep may spend; 0 turns probing off. @defaultValue 50 */
  readonly budget?: number;
  /**
   * How far below the highest known payment-refund id the first probe looks (books older than
   * the probe's watermark). Later probes go on from the watermark, however far the highest
   * known id ran ahead. @defaultValue 1000
   */
  readonly window?: number;
  /** Ids just above the highest known one asked about each sweep. @defaultValue 2 */
  readonly tail?: number;
}

export interface PaymentRefundProbe {
  /** Status requests sent. */
  readonly probed: number;
  /** Of those, ids the service knew as payment refunds: a sync by id is queued for each. */
  readonly found: number;
  /** Why probing stopped before its work was done (an error the next sweep retries). */
  readonly stoppedBy?: string;
  /**
   * Unknown ids below the highest known one still waiting for their question after this probe,
   * when more than `window`: the probe is behind (its budget a sweep is less than the ids the
   * service gives out between sweeps), and says so in a warning.
   */
  readonly behind?: number;
}

export const DEFAULT_PAYMENT_REFUND_PROBES = { budget: 50, window: 1_000, tail: 2 } as const;

/** Ids are numbers; the watermark is stored zero-padded so the checkpoint's text order holds. */
const PAD = 20;

export function paymentRefundProbeStream(environment: string): string {
  return `probe:payment_refund:${environment}`;
}

function numericId(id: string): number | undefined {
  if (!/^\d{1,15}$/.test(id)) return undefined;
  return Number(id);
}

/** Sweeps a found id's sync is queued again while the mirror lacks it, before it is given up. */
const PENDING_SWEEPS = 10;

interface PendingId {
  readonly id: number;
  /** Sweeps that found the mirror still without it. */
  readonly sweeps: number;
}

function pendingOf(detail: unknown): PendingId[] {
  const list = (detail as { pending?: unknown } | null)?.pending;
  if (!Array.isArray(list)) return [];
  return list.filter(
    (entry): entry is PendingId =>
      typeof entry === 'object' &&
      entry !== null &&
      Number.isSafeInteger((entry as PendingId).id) &&
      Number.isSafeInteger((entry as PendingId).sweeps),
  );
}

/**
 * Looks for payment refunds no webhook announced. The service has no list of payment refunds,
 * only `GET /payments-refund/{refundId}/status` with a numeric id, so a payment refund whose
 * every webhook was lost can only be found by asking for its id. The interface document does
 * not say how those ids are given out; when they are increasing, a lost refund is a gap between
 * the ids paysync knows.
 *
 * This asks about the unknown ids above the lowest known one and the watermark (the first time,
 * among the last `window` below the highest), oldest first, at most `budget` a sweep, plus
 * `tail` ids above the highest, and queues a sync by id (the job a webhook leads to) for every
 * one the service knows. An id the service answers 404 or 403 for is not one of ours. A
 * watermark (a polling checkpoint) records how far every id has had its answer, so each is
 * asked about once, and none is passed over: when the highest known id runs ahead faster than
 * the budget asks (a burst of refunds), the probe falls behind and catches up over the next
 * sweeps, with a warning while more than `window` ids wait. An id found is kept in the
 * checkpoint as pending: its sync job lives in Redis, which can lose it, so each sweep queues it
 * again until the mirror holds it, for at most {@link PENDING_SWEEPS} sweeps, and then logs that
 * it gave up. Any other failure stops the probe where it is, and the next sweep goes on from
 * there. When ids are not increasing this finds nothing and costs at most `budget` requests a
 * sweep; the lost refund then shows as balance drift on the collection account, as before.
 */
export async function discoverPaymentRefunds(
  deps: PaymentRefundProbeDependencies,
  options: PaymentRefundProbeOptions = {},
): Promise<PaymentRefundProbe> {
  const { budget, window, tail } = { ...DEFAULT_PAYMENT_REFUND_PROBES, ...options };
  if (budget <= 0) return { probed: 0, found: 0 };
  const ids = await refundIdsOf(deps.db, 'payment_refund');
  const known = new Set<number>();
  let highest = -1;
  let lowest = Number.MAX_SAFE_INTEGER;
  for (const given of ids) {
    const id = numericId(given);
    if (id === undefined) continue;
    known.add(id);
    highest = Math.max(highest, id);
    lowest = Math.min(lowest, id);
  }
  if (known.size === 0) return { probed: 0, found: 0 };
  const stream = paymentRefundProbeStream(deps.environment);
  const checkpoint = await readCheckpoint(deps.db, stream);
  const watermark = checkpoint ? Number(checkpoint.position) : 0;

  // Ids found by earlier sweeps that the mirror still lacks: their sync is queued again.
  const before = pendingOf(checkpoint?.detail);
  const pending: PendingId[] = [];
  for (const entry of before) {
    if (known.has(entry.id)) continue;
    if (entry.sweeps >= PENDING_SWEEPS) {
      deps.logger.warn(
        { paymentRefundId: entry.id, sweeps: entry.sweeps },
        'a payment refund the probe found never reached the mirror; its syncs are no longer queued: run `paysync show payment_refund:<id>` to see why',
      );
      continue;
    }
    await enqueueSync(deps.queues, {
      kind: 'payment_refund',
      id: String(entry.id),
      via: 'sweep',
    });
    pending.push({ id: entry.id, sweeps: entry.sweeps + 1 });
  }

  // The window bounds only the first look back. After that the probe goes on from its
  // watermark: an id passed over would never be asked about again (a burst of 2,000 refund ids
  // between two sweeps of the chaos run left one lost payment refund unfound so).
  const start = checkpoint
    ? Math.max(watermark + 1, lowest + 1)
    : Math.max(highest - window + 1, lowest + 1);
  const gaps: number[] = [];
  for (let id = start; id < highest && gaps.length < budget; id += 1) {
    if (!known.has(id)) gaps.push(id);
  }
  const above = Array.from({ length: tail }, (_, index) => highest + 1 + index);

  let probed = 0;
  let found = 0;
  let answeredUpTo = Math.max(watermark, start - 1);
  let stoppedBy: string | undefined;
  /** Whether the id has its answer; false when the probe must stop and ask again next sweep. */
  const ask = async (id: number): Promise<boolean> => {
    probed += 1;
    try {
      await deps.upstream.getPaymentRefundStatus(id);
    } catch (error) {
      if (error instanceof NotFoundError || error instanceof ForbiddenError) return true;
      stoppedBy = reasonOf(error);
      return false;
    }
    found += 1;
    await enqueueSync(deps.queues, { kind: 'payment_refund', id: String(id), via: 'sweep' });
    if (!pending.some((entry) => entry.id === id)) pending.push({ id, sweeps: 0 });
    return true;
  };

  // At most `budget` gaps were taken, so only a failed question cuts this short.
  for (const id of gaps) {
    if (!(await ask(id))) break;
    answeredUpTo = id;
  }
  // Unknown ids below the highest still without their answer (the one a failure stopped at,
  // those beyond the budget). None: the watermark can move up to the highest.
  const waiting = unknownBetween(known, answeredUpTo + 1, highest);
  if (waiting === 0) answeredUpTo = Math.max(answeredUpTo, highest);
  for (const id of above) {
    if (stoppedBy !== undefined || probed >= budget) break;
    await ask(id);
  }
  const pendingChanged = JSON.stringify(pending) !== JSON.stringify(before);
  if (answeredUpTo > watermark || pendingChanged) {
    await advanceCheckpoint(deps.db, {
      stream,
      position: String(Math.max(answeredUpTo, watermark)).padStart(PAD, '0'),
      detail: { pending },
      at: deps.now().toISOString(),
    });
  }
  if (found > 0) {
    deps.logger.info({ probed, found }, 'payment refunds no webhook announced: syncs queued');
  }
  const behind = waiting > window ? waiting : undefined;
  if (behind !== undefined) {
    deps.logger.warn(
      { behind, budget, watermark: answeredUpTo, highest },
      `payment-refund probe: ${behind} ids below the highest known payment refund (${highest}) not asked about yet, at ${budget} a sweep; a payment refund among them whose webhooks were all lost is found only when the probe reaches it: raise PAYSYNC_PAYMENT_REFUND_PROBES or sweep more often`,
    );
  }
  return {
    probed,
    found,
    ...(stoppedBy === undefined ? {} : { stoppedBy }),
    ...(behind === undefined ? {} : { behind }),
  };
}

/** Ids in [from, to) that are not known payment refunds. */
function unknownBetween(known: ReadonlySet<number>, from: number, to: number): number {
  if (to <= from) return 0;
  let knownInside = 0;
  for (const id of known) if (id >= from && id < to) knownInside += 1;
  return to - from - knownInside;
}
