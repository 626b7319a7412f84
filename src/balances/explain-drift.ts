import {
  listAdjustments,
  journalLinesBetween,
  paymentIntentSettlementLines,
  paymentRefundSettlementLines,
  SERVICE_ACCOUNTS,
  transferRefundSettlementLines,
  transferSettlementLines,
  type JournalLine,
  type OpenItem,
  type ServiceAccountType,
} from '../ledger/index.ts';
import type { FetchedState } from '../reconcile/index.ts';
import type { SnapshotBalance } from './balance-snapshot.repository.ts';
import type { LedgerComparison } from './balance-options.ts';

export type AccountVerdict = 'agrees' | 'pending' | 'drift';

/** One line of the explanation of a difference. */
export interface DriftCandidate {
  /**
   * `in_flight`: settled at the service, not booked yet; `straddle`: booked on the other side
   * of the instant; `adjustment`: booked by a person near the instant (listed, not counted).
   */
  readonly reason: 'in_flight' | 'straddle' | 'adjustment';
  readonly resourceKind: string;
  readonly resourceId: string;
  /** What it accounts for in the difference (service minus ledger), minor units. */
  readonly amount: number;
  readonly at: string;
  readonly note: string;
}

/** The service's balance of one account against the ledger's, at the snapshot's instant. */
export interface AccountComparison {
  readonly accountType: string;
  readonly account: string;
  readonly currency: string;
  readonly asOf: string;
  readonly service: number;
  readonly ledger: number;
  /** Service minus ledger. */
  readonly difference: number;
  /** The part of the difference the candidates account for. */
  readonly explained: number;
  readonly unexplained: number;
  readonly verdict: AccountVerdict;
  readonly candidates: readonly DriftCandidate[];
}

/** An open item as the targeted poll found it at the service. */
export interface PolledItem {
  readonly item: OpenItem;
  readonly states: readonly FetchedState[];
}

function settledLines(state: FetchedState, item: OpenItem): JournalLine[] {
  if (state.state.status !== 'successful') return [];
  switch (state.kind) {
    case 'payment_intent':
      return paymentIntentSettlementLines(state.state);
    case 'transfer':
      return transferSettlementLines(state.state);
    case 'refund':
      return transferRefundSettlementLines(state.state, item.isIrt);
    case 'payment_refund':
      return paymentRefundSettlementLines(state.state);
  }
}

function updatedAtOf(state: FetchedState): string | undefined {
  const value = (state.state as { updatedAt?: string }).updatedAt;
  return value === undefined ? undefined : new Date(value).toISOString();
}

/** Items the service settled at or before the instant whose money the ledger has not booked. */
function inFlightCandidates(
  polled: readonly PolledItem[],
  account: string,
  currency: string,
  asOf: string,
): DriftCandidate[] {
  const found: DriftCandidate[] = [];
  for (const { item, states } of polled) {
    for (const state of states) {
      const at = updatedAtOf(state);
      if (at === undefined || at > asOf) continue;
      const amount = settledLines(state, item)
        .filter((line) => line.account === account && line.currency === currency)
        .reduce((sum, line) => sum + line.amount, 0);
      if (amount === 0) continue;
      found.push({
        reason: 'in_flight',
        resourceKind: state.kind,
        resourceId: item.id,
        amount,
        at,
        note: `settled at the service at ${at}, still ${item.status} in the ledger (a sync will book it)`,
      });
    }
  }
  return found;
}

/**
 * Bookings near the instant that the service may have counted on the other side of it: lines
 * effective just after it (the service may already hold them) and just before it (it may not
 * yet). Used only when a run of them, nearest first, accounts for the rest exactly.
 */
async function straddleCandidates(
  deps: LedgerComparison,
  snapshot: SnapshotBalance,
  account: string,
  remaining: number,
): Promise<DriftCandidate[]> {
  if (remaining === 0) return [];
  const instant = Date.parse(snapshot.asOf);
  const window = deps.straddleWindowMs;
  const near = await journalLinesBetween(deps.db, {
    account: account as never,
    currency: snapshot.currency,
    from: new Date(instant - window).toISOString(),
    to: new Date(instant + window).toISOString(),
  });
  const after = near.filter((line) => line.effectiveAt > snapshot.asOf);
  const before = near.filter((line) => line.effectiveAt <= snapshot.asOf).reverse();
  for (const [lines, sign] of [
    [after, 1],
    [before, -1],
  ] as const) {
    let sum = 0;
    for (let index = 0; index < lines.length; index += 1) {
      sum += sign * lines[index]!.amount;
      if (sum === remaining) {
        return lines.slice(0, index + 1).map((line) => ({
          reason: 'straddle' as const,
          resourceKind: line.resourceKind,
          resourceId: line.resourceId,
          amount: sign * line.amount,
          at: line.effectiveAt,
          note:
            sign > 0
              ? `booked effective ${line.effectiveAt}, after the instant; the service already counted it`
              : `booked effective ${line.effectiveAt}, before the instant; the service had not counted it yet`,
        }));
      }
    }
  }
  return [];
}

async function adjustmentCandidates(
  deps: LedgerComparison,
  snapshot: SnapshotBalance,
  account: string,
): Promise<DriftCandidate[]> {
  const instant = Date.parse(snapshot.asOf);
  const adjustments = await listAdjustments(deps.db, {
    environment: deps.environment,
    account: account as never,
    from: new Date(instant - 24 * 3_600_000).toISOString(),
    to: new Date(instant + 1).toISOString(),
  });
  return adjustments
    .filter((a) => a.kind === 'adjustment' && a.currency === snapshot.currency)
    .map((a) => ({
      reason: 'adjustment' as const,
      resourceKind: 'adjustment',
      resourceId: a.resourceId,
      amount: 0,
      at: a.effectiveAt,
      note: `adjustment of ${a.amount} booked by ${a.bookedBy}: ${a.reason} (already in the ledger)`,
    }));
}

/** Compares one snapshot balance with the ledger's and explains the difference. */
export async function explainAccount(
  deps: LedgerComparison,
  snapshot: SnapshotBalance,
  ledger: number,
  polled: readonly PolledItem[],
): Promise<AccountComparison> {
  const account = SERVICE_ACCOUNTS[snapshot.accountType as ServiceAccountType];
  const difference = snapshot.amount - ledger;
  const base = {
    accountType: snapshot.accountType,
    account,
    currency: snapshot.currency,
    asOf: snapshot.asOf,
    service: snapshot.amount,
    ledger,
    difference,
  };
  if (difference === 0) {
    return { ...base, explained: 0, unexplained: 0, verdict: 'agrees', candidates: [] };
  }
  const inFlight = inFlightCandidates(polled, account, snapshot.currency, snapshot.asOf);
  const inFlightSum = inFlight.reduce((sum, c) => sum + c.amount, 0);
  const straddles = await straddleCandidates(deps, snapshot, account, difference - inFlightSum);
  const explained = inFlightSum + straddles.reduce((sum, c) => sum + c.amount, 0);
  const unexplained = difference - explained;
  const adjustments = await adjustmentCandidates(deps, snapshot, account);
  return {
    ...base,
    explained,
    unexplained,
    verdict: unexplained === 0 ? 'pending' : 'drift',
    candidates: [...inFlight, ...straddles, ...adjustments],
  };
}
