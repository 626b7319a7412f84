import {
  bookOpeningBalance,
  discrepanciesFor,
  earliestKnownInstant,
  lastOpeningSequence,
  openItems,
  pairServiceBalances,
  recordDiscrepancy,
  resolveDiscrepancy,
  SERVICE_ACCOUNTS,
  serviceBalancesAsOf,
  type BookedAdjustment,
  type DiscrepancySummary,
  type ServiceAccountType,
} from '../ledger/index.ts';
import { addToOutbox, notifyOutbox } from '../outbox/index.ts';
import { fetchResourceState } from '../reconcile/index.ts';
import {
  driftDetectedEvent,
  driftResolvedEvent,
  emitRelayEvents,
  notifyRelay,
  type RelayEventDraft,
} from '../relay/index.ts';
import { readStateValue, setStateValueOnce } from '../service-state/index.ts';
import { ContractError } from '../upstream/index.ts';
import { insertSnapshot, type SnapshotBalance } from './balance-snapshot.repository.ts';
import type { SnapshotKind } from './balance-snapshot.table.ts';
import {
  resolveBalanceDependencies,
  type BalanceDependencies,
  type LedgerComparison,
  type ResolvedBalanceDependencies,
} from './balance-options.ts';
import { explainAccount, type AccountComparison, type PolledItem } from './explain-drift.ts';
import { checkLowBalances, type LowBalanceCrossing } from './low-balance.ts';
import { readBalanceResponse } from './read-balance-response.ts';
import { reasonOf } from '../error-reason.ts';

export type SnapshotOutcome =
  | {
      readonly ok: true;
      readonly asOf: string;
      readonly takenAt: string;
      readonly kind: SnapshotKind;
      readonly balances: readonly SnapshotBalance[];
      /** Opening balances booked by this snapshot (only the first one books them). */
      readonly openings: readonly BookedAdjustment[];
      readonly comparisons: readonly AccountComparison[];
      /** `balance_drift` discrepancies recorded by this snapshot. */
      readonly driftRecorded: readonly DiscrepancySummary[];
      /** Accounts that went under their low-balance threshold with this snapshot. */
      readonly lowBalance: readonly LowBalanceCrossing[];
      readonly unknownAccounts: readonly string[];
      /** Accounts the ledger holds that the answer omits: not compared, never read as 0. */
      readonly unanswered: readonly UnansweredAccount[];
    }
  | {
      readonly ok: false;
      readonly asOf: string;
      readonly takenAt: string;
      /** Why the service's balance could not be read, in one line. */
      readonly problem: string;
      readonly discrepancyId: number | undefined;
    };

/**
 * A `service:*` account the ledger holds (non-zero) that the service's answer did not list. Its
 * balance at the service is unknown, not 0: it is not compared, no drift is recorded or resolved
 * for it, and the next answer that lists it is compared as usual.
 */
export interface UnansweredAccount {
  readonly accountType: string;
  readonly account: string;
  readonly currency: string;
  /** The ledger's balance at the snapshot's instant, minor units. */
  readonly ledger: number;
}

export interface SnapshotRequest {
  /** The instant to ask the balance for (`date`). @defaultValue now */
  readonly at?: string;
  /** @defaultValue `manual` */
  readonly kind?: SnapshotKind;
}

const OPENED_KEY = (environment: string) => `balances:opened:${environment}`;
const DRIFT_RESOURCE = 'balance_account';

/** The key of one account and currency in discrepancies: `sandbox:transfer:XOF`. */
export function balanceAccountKey(environment: string, accountType: string, currency: string) {
  return `${environment}:${accountType}:${currency}`;
}

type Reading =
  | { ok: true; body: unknown; balances: SnapshotBalance[]; asOf: string; unknown: string[] }
  | { ok: false; body: unknown; problem: string; asOf: string };

async function readBalances(
  deps: ResolvedBalanceDependencies,
  at: string | undefined,
  kind: SnapshotKind,
  takenAt: string,
): Promise<Reading> {
  let body: unknown;
  try {
    body = await deps.upstream.getBalance(at === undefined ? {} : { date: at });
  } catch (error) {
    if (!(error instanceof ContractError)) throw error;
    return { ok: false, body: error.message, problem: error.message, asOf: at ?? takenAt };
  }
  const reading = readBalanceResponse(body);
  const asOf = reading.ok && reading.asOf ? reading.asOf : (at ?? takenAt);
  if (!reading.ok) return { ok: false, body, problem: reading.problem, asOf };
  return {
    ok: true,
    body,
    asOf,
    unknown: [...reading.unknownAccounts],
    balances: reading.balances.map((b) => ({
      environment: deps.environment,
      accountType: b.accountType,
      currency: b.currency,
      amount: b.amount,
      asOf,
      takenAt,
      kind,
    })),
  };
}

/**
 * The ledger starts empty but the merchant's accounts do not. The first snapshot books the
 * service's balances as of just before the first item paysync knows of (the service answers for
 * any past `date`), so no booked item is counted twice, less what the ledger already holds by
 * then (an adjustment dated before the first item). Done once per environment; only
 * `paysync balances --open-at` books again.
 */
async function openIfFirst(
  deps: ResolvedBalanceDependencies,
  current: Extract<Reading, { ok: true }>,
): Promise<BookedAdjustment[]> {
  if ((await readStateValue(deps.db, OPENED_KEY(deps.environment))) !== undefined) return [];
  const earliest = await earliestKnownInstant(deps.db);
  const openAt =
    earliest !== undefined && earliest <= current.asOf
      ? new Date(Date.parse(earliest) - 1).toISOString()
      : current.asOf;
  const reading =
    openAt === current.asOf
      ? current
      : await readBalances(deps, openAt, 'manual', deps.now().toISOString());
  if (!reading.ok) {
    deps.logger.warn(
      { openAt, problem: reading.problem },
      "balance snapshot: the service's balance before the first item could not be read; no opening balance was booked (the next snapshot tries again)",
    );
    return [];
  }
  return bookOpenings(
    deps,
    await beyondLedger(deps, reading.balances, openAt),
    openAt,
    1,
    'first balance snapshot',
  );
}

/**
 * What the service holds beyond what the ledger already holds as of `openAt`, per account and
 * currency. An opening books that, so money the ledger already has by then (an adjustment a
 * person dated before the first item: last month's top-up) is not counted twice (issue 40.12).
 */
async function beyondLedger(
  deps: ResolvedBalanceDependencies,
  balances: readonly SnapshotBalance[],
  openAt: string,
): Promise<SnapshotBalance[]> {
  const ledger = await serviceBalancesAsOf(deps.db, openAt);
  return balances.map((balance) => ({
    ...balance,
    amount:
      balance.amount -
      (ledger.find(
        (l) =>
          l.account === SERVICE_ACCOUNTS[balance.accountType as ServiceAccountType] &&
          l.currency === balance.currency,
      )?.balance ?? 0),
  }));
}

/** Books one opening journal per account and currency as of `openAt`, and marks the opening. */
export async function bookOpenings(
  deps: ResolvedBalanceDependencies,
  balances: readonly SnapshotBalance[],
  openAt: string,
  sequence: number,
  reason: string,
  bookedBy: string = deps.bookedBy,
): Promise<BookedAdjustment[]> {
  return deps.db.transaction().execute(async (trx) => {
    const marker = { at: openAt, sequence };
    const onFile = (await setStateValueOnce(
      trx,
      `${OPENED_KEY(deps.environment)}${sequence === 1 ? '' : `:${sequence}`}`,
      marker,
      deps.now().toISOString(),
    )) as { at: string; sequence: number };
    if (onFile.at !== openAt) return [];
    const booked: BookedAdjustment[] = [];
    for (const balance of balances) {
      const opening = await bookOpeningBalance(trx, {
        environment: deps.environment,
        account: SERVICE_ACCOUNTS[balance.accountType as ServiceAccountType],
        currency: balance.currency,
        amount: balance.amount,
        effectiveAt: openAt,
        reason: `${reason}, service balance as of ${openAt}`,
        bookedBy,
        sequence,
        postedAt: deps.now().toISOString(),
      });
      if (opening) booked.push(opening);
    }
    return booked;
  });
}

/**
 * `paysync balances --open-at <time>`: books opening balances again, explicitly. Each account
 * gets what makes the ledger agree with the service at that instant (service minus ledger, as
 * of it), as the next opening in sequence, so earlier openings are corrected, never doubled.
 */
export async function openBalancesAgain(
  input: BalanceDependencies,
  openAt: string,
  bookedBy: string,
): Promise<BookedAdjustment[]> {
  const deps = resolveBalanceDependencies(input);
  const reading = await readBalances(deps, openAt, 'manual', deps.now().toISOString());
  if (!reading.ok) {
    throw new Error(`the service's balance as of ${openAt} could not be read: ${reading.problem}`);
  }
  const differences = await beyondLedger(deps, reading.balances, openAt);
  const sequence = (await lastOpeningSequence(deps.db, deps.environment)) + 1;
  return bookOpenings(
    deps,
    differences,
    openAt,
    sequence,
    `opening balance booked again by ${bookedBy}`,
    bookedBy,
  );
}

/** Polls the open items created by the instant, so settled-but-unsynced money is explained. */
async function pollOpenItems(deps: LedgerComparison, asOf: string): Promise<PolledItem[]> {
  if (!deps.fetch) return [];
  const items = (await openItems(deps.db, deps.maxInFlightPolls))
    .filter((item) => item.createdAt === null || item.createdAt <= asOf)
    .slice(0, deps.maxInFlightPolls);
  const polled: PolledItem[] = [];
  for (const item of items) {
    try {
      const fetched = await fetchResourceState(deps.fetch, {
        kind: item.kind,
        id: item.id,
        via: 'poll',
      });
      polled.push({ item, states: fetched.states });
    } catch (error) {
      deps.logger.warn(
        {
          kind: item.kind,
          id: item.id,
          reason: reasonOf(error),
        },
        'balance check: could not poll an open item; it stays unexplained',
      );
    }
  }
  return polled;
}

/** Records or resolves `balance_drift` per account from the comparisons. */
async function settleDrift(
  deps: ResolvedBalanceDependencies,
  comparisons: readonly AccountComparison[],
): Promise<DiscrepancySummary[]> {
  const recorded: DiscrepancySummary[] = [];
  const deliveries = await deps.db.transaction().execute(async (trx) => {
    // The relay's events commit with the drift they report (docs/relay.md).
    const events: RelayEventDraft[] = [];
    for (const comparison of comparisons) {
      const resourceId = balanceAccountKey(
        deps.environment,
        comparison.accountType,
        comparison.currency,
      );
      const open = (await discrepanciesFor(trx, DRIFT_RESOURCE, resourceId)).filter(
        (d) => d.kind === 'balance_drift' && d.resolvedAt === null,
      );
      const figures = {
        account: comparison.account,
        accountType: comparison.accountType,
        currency: comparison.currency,
        asOf: comparison.asOf,
        expected: comparison.ledger,
        held: comparison.service,
        difference: comparison.difference,
      };
      if (comparison.verdict !== 'drift') {
        // Only a later (or the same) instant vouches for a drift's end: an end-of-day snapshot
        // of an earlier midnight that agrees says nothing of a drift found after it.
        const ended = open.filter(
          (drift) => Date.parse(drift.createdAt) <= Date.parse(comparison.asOf),
        );
        for (const drift of ended) {
          if (await resolveDiscrepancy(trx, drift.id, comparison.asOf)) {
            events.push(
              driftResolvedEvent(deps.environment, {
                discrepancyId: drift.id,
                ...figures,
                detectedAt: drift.createdAt,
              }),
            );
          }
        }
        continue;
      }
      if (open.length > 0) continue;
      const { isNew, discrepancy } = await recordDiscrepancy(trx, {
        kind: 'balance_drift',
        resourceKind: DRIFT_RESOURCE,
        resourceId,
        dedupeKey: `balance_drift:${resourceId}:${comparison.asOf}`,
        createdAt: comparison.asOf,
        detail: {
          environment: deps.environment,
          accountType: comparison.accountType,
          account: comparison.account,
          currency: comparison.currency,
          asOf: comparison.asOf,
          service: comparison.service,
          ledger: comparison.ledger,
          amount: comparison.unexplained,
          difference: comparison.difference,
          candidates: comparison.candidates,
        },
      });
      if (isNew) {
        recorded.push(discrepancy);
        events.push(
          driftDetectedEvent(deps.environment, {
            discrepancyId: discrepancy.id,
            ...figures,
            unexplained: comparison.unexplained,
          }),
        );
        // The alert commits with the discrepancy: never lost to a Redis outage.
        await addToOutbox(trx, {
          kind: 'alert',
          dedupeKey: `alert:balance_drift:${discrepancy.id}`,
          payload: {
            reason: 'discrepancy',
            kind: DRIFT_RESOURCE,
            id: resourceId,
            discrepancyId: discrepancy.id,
            discrepancyKind: 'balance_drift',
            detail: { amount: comparison.unexplained, currency: comparison.currency },
          },
          createdAt: deps.now().toISOString(),
        });
      }
    }
    const emitted = await emitRelayEvents(trx, events, deps.now().toISOString());
    return emitted.deliveries;
  });
  if (recorded.length > 0) notifyOutbox();
  if (deliveries > 0) notifyRelay();
  return recorded;
}

/**
 * Takes a snapshot of every account's balance, stores it with the raw response, books opening
 * balances the first time, compares each account with the ledger at the snapshot's instant and
 * explains any difference, records or resolves drift, and checks low-balance thresholds.
 * A response paysync cannot read records a `contract_error` and takes no number from it.
 */
export async function takeBalanceSnapshot(
  input: BalanceDependencies,
  request: SnapshotRequest = {},
): Promise<SnapshotOutcome> {
  const deps = resolveBalanceDependencies(input);
  const kind = request.kind ?? 'manual';
  const takenAt = deps.now().toISOString();
  const at = request.at === undefined ? undefined : new Date(request.at).toISOString();
  const reading = await readBalances(deps, at, kind, takenAt);
  if (!reading.ok) {
    const { discrepancy } = await recordDiscrepancy(deps.db, {
      kind: 'contract_error',
      resourceKind: 'balance',
      resourceId: deps.environment,
      detail: { operation: 'getBalance', problem: reading.problem },
      rawBody: reading.body,
      createdAt: takenAt,
    });
    deps.logger.error(
      { problem: reading.problem, discrepancyId: discrepancy.id },
      "balance snapshot: the service's balance response could not be read; nothing was booked",
    );
    return {
      ok: false,
      asOf: reading.asOf,
      takenAt,
      problem: reading.problem,
      discrepancyId: discrepancy.id,
    };
  }
  await insertSnapshot(deps.db, reading.balances, JSON.stringify(reading.body));
  const openings = await openIfFirst(deps, reading);
  const comparisons = await compareWithLedger(deps, reading.balances, reading.asOf);
  const unanswered = await unansweredAccounts(deps, reading.balances, reading.asOf);
  for (const account of unanswered) {
    deps.logger.warn(
      { unanswered: account },
      `balance snapshot: the service's answer omits ${account.accountType} ${account.currency}, which the ledger holds; it is not compared (never read as 0)`,
    );
  }
  const driftRecorded = await settleDrift(deps, comparisons);
  const lowBalance =
    kind === 'end_of_day'
      ? []
      : await deps.db.transaction().execute(async (trx) => {
          const crossings = await checkLowBalances(
            trx,
            deps.environment,
            deps.lowBalance,
            reading.balances,
          );
          for (const crossing of crossings) {
            const subject = balanceAccountKey(
              crossing.environment,
              crossing.accountType,
              crossing.currency,
            );
            await addToOutbox(trx, {
              kind: 'alert',
              dedupeKey: `alert:low_balance:${subject}:${crossing.crossings}`,
              payload: {
                reason: 'low_balance',
                kind: DRIFT_RESOURCE,
                id: subject,
                detail: crossing,
              },
              createdAt: takenAt,
            });
          }
          return crossings;
        });
  if (lowBalance.length > 0) notifyOutbox();
  for (const crossing of lowBalance) {
    deps.logger.warn(
      { lowBalance: crossing },
      `low balance: ${crossing.accountType} ${crossing.currency} is ${crossing.amount}, under ${crossing.minimum}`,
    );
  }
  return {
    ok: true,
    asOf: reading.asOf,
    takenAt,
    kind,
    balances: reading.balances,
    openings,
    comparisons,
    driftRecorded,
    lowBalance,
    unknownAccounts: reading.unknown,
    unanswered,
  };
}

/**
 * Each snapshot balance against the ledger's `service:*` account at the same instant. Only
 * accounts the answer lists are compared: one it omits is unknown at the service, not 0 (see
 * {@link unansweredAccounts}).
 */
export async function compareWithLedger(
  deps: LedgerComparison,
  balances: readonly SnapshotBalance[],
  asOf: string,
): Promise<AccountComparison[]> {
  const pairs = pairServiceBalances(balances, await serviceBalancesAsOf(deps.db, asOf)).filter(
    (pair) => pair.listed,
  );
  const differs = pairs.some((pair) => pair.service !== pair.ledger);
  const polled = differs ? await pollOpenItems(deps, asOf) : [];
  const comparisons: AccountComparison[] = [];
  for (const pair of pairs) {
    const snapshot = balances.find(
      (b) => b.accountType === pair.accountType && b.currency === pair.currency,
    )!;
    comparisons.push(await explainAccount(deps, snapshot, pair.ledger, polled));
  }
  return comparisons;
}

/** The ledger's non-zero `service:*` accounts at the instant that the answer does not list. */
export async function unansweredAccounts(
  deps: Pick<LedgerComparison, 'db'>,
  balances: readonly SnapshotBalance[],
  asOf: string,
): Promise<UnansweredAccount[]> {
  return pairServiceBalances(balances, await serviceBalancesAsOf(deps.db, asOf))
    .filter((pair) => !pair.listed)
    .map((pair) => ({
      accountType: pair.accountType,
      account: SERVICE_ACCOUNTS[pair.accountType as ServiceAccountType],
      currency: pair.currency,
      ledger: pair.ledger,
    }));
}
