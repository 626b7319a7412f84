import type { Kysely } from 'kysely';
import type { Database } from '../db/index.ts';
import {
  openDiscrepancies,
  pairServiceBalances,
  openItems,
  countsByStatus,
  lineTotalsByEntryType,
  resourceIdsCreatedIn,
  serviceBalancesAsOf,
  type DiscrepancySummary,
  type OpenItem,
} from '../ledger/index.ts';
import { dayWindow } from '../books-calendar/index.ts';
import { openBreaksDetectedIn } from '../expectations/index.ts';
import { describeBreak, describeExpectationBreak, type BreakLine } from './break-wording.ts';
import type { Verdict } from './daily-verdict.table.ts';

/** How long an item may stay non-terminal before it is a break, per kind, in hours. */
export interface PendingSla {
  readonly payment_intent: number;
  readonly transfer: number;
  readonly refund: number;
  readonly payment_refund: number;
  /** A refund in `pending_manual`. */
  readonly pending_manual: number;
}

export const DEFAULT_PENDING_SLA: PendingSla = {
  payment_intent: 48,
  transfer: 24,
  refund: 72,
  payment_refund: 72,
  pending_manual: 7 * 24,
};

/** The janitor's stuck thresholds (`PAYSYNC_STUCK_*_AFTER`, in ms) as the report's SLAs. */
export function pendingSlaOf(stuckAfterMs: {
  readonly payment_intent: number;
  readonly transfer: number;
  readonly refund: number;
  readonly pending_manual: number;
}): PendingSla {
  const hours = (ms: number) => ms / 3_600_000;
  return {
    payment_intent: hours(stuckAfterMs.payment_intent),
    transfer: hours(stuckAfterMs.transfer),
    refund: hours(stuckAfterMs.refund),
    payment_refund: hours(stuckAfterMs.refund),
    pending_manual: hours(stuckAfterMs.pending_manual),
  };
}

/**
 * Whether the sweeps covered a window, so items whose webhooks were lost are in the ledger.
 * Returns undefined when covered, or why not, in one line.
 */
export type CoverageCheck = (window: { from: string; to: string }) => Promise<string | undefined>;

export interface DailyReportRequest {
  readonly db: Kysely<Database>;
  readonly environment: string;
  /** YYYY-MM-DD in `timeZone`. */
  readonly day: string;
  readonly timeZone: string;
  /** When the report is made, by the caller's clock: items' ages and whether the day is over. */
  readonly now: Date;
  /** @defaultValue {@link DEFAULT_PENDING_SLA} */
  readonly sla?: PendingSla;
  /** Without one, the report says it cannot tell whether the sweeps covered the day. */
  readonly coverage?: CoverageCheck;
  /**
   * Which kinds of open expectation break make the day `BREAKS`
   * (`PAYSYNC_EXPECTATIONS_BREAK_VERDICT`); the others are only counted.
   * @defaultValue {@link DEFAULT_EXPECTATION_BREAK_VERDICT}
   */
  readonly expectationBreakVerdict?: readonly string[];
}

/** An open `missing` expectation break makes the day `BREAKS`; the other kinds are counted. */
export const DEFAULT_EXPECTATION_BREAK_VERDICT: readonly string[] = ['missing'];

/** The open expectation breaks detected on the day, by kind, and whether that kind breaks it. */
export interface ExpectationBreakCount {
  readonly kind: string;
  readonly count: number;
  readonly breaksTheDay: boolean;
}

export interface ReportedItem {
  readonly kind: string;
  readonly id: string;
  readonly status: string;
  readonly createdAt: string | null;
  readonly ageHours: number;
  readonly slaHours: number;
}

export interface MoneySummary {
  readonly currency: string;
  /** Customer payments booked (income). */
  readonly gross: number;
  readonly fees: number;
  /** Money refunded to customers. */
  readonly refunds: number;
  /** Money paid out to recipients, net of transfer refunds. */
  readonly payouts: number;
  /** Change of the service accounts from items: gross − refunds − payouts − fees. */
  readonly net: number;
  /** Change of the service accounts from opening balances (booked by the first snapshot). */
  readonly openingBalances: number;
  /** Change of the service accounts from adjustments (`paysync adjust`). */
  readonly adjustments: number;
}

/**
 * One account at the end of the day. An account the ledger holds but the end-of-day answer did
 * not list has `service` and `difference` null and `notInAnswer` true: not compared, never 0.
 */
export interface EndOfDayBalance {
  readonly accountType: string;
  readonly currency: string;
  readonly service: number | null;
  readonly ledger: number;
  readonly difference: number | null;
  readonly notInAnswer?: true;
}

export interface DailyReport {
  readonly environment: string;
  readonly day: string;
  readonly timeZone: string;
  readonly window: { readonly from: string; readonly to: string };
  readonly generatedAt: string;
  readonly verdict: Verdict;
  readonly counts: readonly { kind: string; status: string; count: number }[];
  readonly money: readonly MoneySummary[];
  readonly pending: readonly ReportedItem[];
  readonly breaks: readonly (BreakLine & { discrepancyId?: number })[];
  readonly endOfDayBalances: readonly EndOfDayBalance[] | null;
  /** Why paysync cannot vouch for the day (empty when it can). */
  readonly incomplete: readonly string[];
  /** Every open item, by age: `<1h`, `1-24h`, `1-3d`, `>3d`. */
  readonly ageing: readonly { bucket: string; count: number }[];
  /**
   * The open expectation breaks detected on the day, by kind (docs/expectations.md, "In the
   * verdict"); those of the kinds that break the day are also in `breaks`. Absent from reports
   * stored before issue 24.
   */
  readonly expectationBreaks?: readonly ExpectationBreakCount[];
}

const HOUR = 3_600_000;

function slaHoursOf(item: { kind: string; status: string }, sla: PendingSla): number {
  if (item.status === 'pending_manual') return sla.pending_manual;
  return sla[item.kind as keyof PendingSla] ?? sla.transfer;
}

async function moneyIn(
  db: Kysely<Database>,
  window: { from: string; to: string },
): Promise<MoneySummary[]> {
  const rows = await lineTotalsByEntryType(db, window);
  const byCurrency = new Map<string, { -readonly [K in keyof MoneySummary]: MoneySummary[K] }>();
  for (const row of rows) {
    const total = row.total;
    const money = byCurrency.get(row.currency) ?? {
      currency: row.currency,
      gross: 0,
      fees: 0,
      refunds: 0,
      payouts: 0,
      net: 0,
      openingBalances: 0,
      adjustments: 0,
    };
    byCurrency.set(row.currency, money);
    if (row.account.startsWith('service:')) {
      if (row.entryType === 'opening') money.openingBalances += total;
      else if (row.entryType === 'adjustment') money.adjustments += total;
      else money.net += total;
    } else if (row.account === 'income:payments') money.gross -= total;
    else if (row.account === 'expenses:transfer-fees') money.fees += total;
    else if (row.account === 'refunds:customers') money.refunds += total;
    else if (row.account === 'payouts:recipients') money.payouts += total;
  }
  return [...byCurrency.values()].sort((a, b) => a.currency.localeCompare(b.currency));
}

async function endOfDayBalances(
  db: Kysely<Database>,
  environment: string,
  instant: string,
): Promise<EndOfDayBalance[] | null> {
  const snapshots = await db
    .selectFrom('balance_snapshots')
    .selectAll()
    .where('environment', '=', environment)
    .where('as_of', '=', instant)
    .orderBy('account_type')
    .orderBy('currency')
    .execute();
  if (snapshots.length === 0) return null;
  const pairs = pairServiceBalances(
    snapshots.map((s) => ({
      accountType: s.account_type,
      currency: s.currency,
      amount: Number(s.amount),
    })),
    await serviceBalancesAsOf(db, instant),
  );
  return pairs.map((pair) =>
    pair.listed
      ? {
          accountType: pair.accountType,
          currency: pair.currency,
          service: pair.service,
          ledger: pair.ledger,
          difference: pair.service - pair.ledger,
        }
      : {
          accountType: pair.accountType,
          currency: pair.currency,
          service: null,
          ledger: pair.ledger,
          difference: null,
          notInAnswer: true,
        },
  );
}

async function dayDiscrepancies(
  db: Kysely<Database>,
  window: { from: string; to: string },
  itemsOfDay: ReadonlySet<string>,
): Promise<DiscrepancySummary[]> {
  // Open discrepancies are few (each is a break someone must act on): filter them here.
  const open = await openDiscrepancies(db, { limit: 100_000 });
  return open
    .filter(
      (d) =>
        (d.createdAt >= window.from && d.createdAt < window.to) ||
        (d.resourceId !== null && itemsOfDay.has(d.resourceId)),
    )
    .sort((a, b) => a.id - b.id);
}

/**
 * The items still open, by their age at `asOf`; an item created after `asOf` is left out, so a
 * past day's report counts only what existed by its end.
 */
function ageing(items: readonly OpenItem[], asOf: number) {
  const buckets = [
    { bucket: '<1h', max: HOUR, count: 0 },
    { bucket: '1-24h', max: 24 * HOUR, count: 0 },
    { bucket: '1-3d', max: 72 * HOUR, count: 0 },
    { bucket: '>3d', max: Number.POSITIVE_INFINITY, count: 0 },
  ];
  for (const item of items) {
    const age = asOf - Date.parse(item.createdAt ?? item.updatedAt);
    if (age < 0) continue;
    buckets.find((b) => age < b.max)!.count += 1;
  }
  return buckets.map(({ bucket, count }) => ({ bucket, count }));
}

/**
 * The answer to "are that day's books right?": one verdict, with what it rests on.
 * - `BREAKS` when anything is known to be wrong (an open discrepancy, a stuck item, an
 *   end-of-day balance that differs from the ledger, an open expectation break detected that
 *   day of a kind in `expectationBreakVerdict`); it wins over everything else;
 * - `INCOMPLETE` when paysync cannot vouch for the day (no end-of-day snapshot, an account the
 *   ledger holds that the end-of-day answer does not list, sweeps that did not cover it);
 * - `RECONCILED_WITH_PENDING` when only items still inside their SLA are open;
 * - `RECONCILED` otherwise.
 */
export async function buildDailyReport(request: DailyReportRequest): Promise<DailyReport> {
  const { db, environment, day, timeZone } = request;
  const now = request.now;
  const sla = request.sla ?? DEFAULT_PENDING_SLA;
  const window = dayWindow(day, timeZone);
  const open = await openItems(db, 100_000);
  const ofDay = open.filter(
    (item) =>
      item.createdAt !== null && item.createdAt >= window.from && item.createdAt < window.to,
  );
  const reported = ofDay.map((item) => ({
    kind: item.kind,
    id: item.id,
    status: item.status,
    createdAt: item.createdAt,
    ageHours: Math.floor(((now.getTime() - Date.parse(item.createdAt!)) / HOUR) * 10) / 10,
    slaHours: slaHoursOf(item, sla),
  }));
  const pending = reported.filter((item) => item.ageHours < item.slaHours);
  const stuck = reported.filter((item) => item.ageHours >= item.slaHours);
  const itemIds = new Set(await resourceIdsCreatedIn(db, window));
  const discrepancies = await dayDiscrepancies(db, window, itemIds);
  const breaks: (BreakLine & { discrepancyId?: number })[] = discrepancies.map((d) => ({
    ...describeBreak(d),
    discrepancyId: d.id,
  }));
  const stuckRecorded = new Set(
    discrepancies.filter((d) => d.kind === 'stuck').map((d) => d.resourceId),
  );
  for (const item of stuck) {
    if (stuckRecorded.has(item.id)) continue;
    breaks.push({
      kind: 'stuck',
      subject: item.id,
      line: `${item.id} has been ${item.status} for ${item.ageHours} h, past its ${item.slaHours} h SLA`,
      action: `ask the service about it (paysync show ${item.id}); paysync keeps polling it`,
    });
  }
  const breakingKinds = new Set(
    request.expectationBreakVerdict ?? DEFAULT_EXPECTATION_BREAK_VERDICT,
  );
  const expectationBreaks = new Map<string, ExpectationBreakCount>();
  for (const b of await openBreaksDetectedIn(db, environment, window)) {
    const breaksTheDay = breakingKinds.has(b.kind);
    const count = expectationBreaks.get(b.kind)?.count ?? 0;
    expectationBreaks.set(b.kind, { kind: b.kind, count: count + 1, breaksTheDay });
    if (breaksTheDay) breaks.push(describeExpectationBreak(b));
  }
  const incomplete: string[] = [];
  const balances =
    window.to <= now.toISOString() ? await endOfDayBalances(db, environment, window.to) : null;
  if (window.to > now.toISOString())
    incomplete.push(
      `the day is not over yet (it ends ${window.to}): run paysync report --date ${day} after it ends`,
    );
  else if (balances === null) {
    incomplete.push(
      `no end-of-day balance snapshot as of ${window.to}: take it with paysync balances --at ${window.to}`,
    );
  }
  for (const balance of balances ?? []) {
    if (balance.difference === null) {
      incomplete.push(
        `the end-of-day answer does not list ${balance.accountType} ${balance.currency} (ledger ${balance.ledger} ${balance.currency}, in minor units): not compared, never read as 0; ask the service why, then take the snapshot again with paysync balances --at ${window.to}`,
      );
      continue;
    }
    if (balance.difference === 0) continue;
    if (
      breaks.some(
        (b) =>
          b.kind === 'balance_drift' &&
          b.subject.endsWith(`:${balance.accountType}:${balance.currency}`),
      )
    ) {
      continue;
    }
    breaks.push({
      kind: 'end_of_day_balance',
      subject: `${balance.accountType}:${balance.currency}`,
      line: `the end-of-day ${balance.accountType} ${balance.currency} balance differs from the ledger by ${balance.difference} ${balance.currency} (service ${balance.service}, ledger ${balance.ledger}, in minor units)`,
      action:
        'run paysync balances --at ' +
        window.to +
        ' to see the explanation, then book what is missing with paysync adjust',
    });
  }
  if (!request.coverage) {
    incomplete.push(
      `sweep coverage is unknown (no sweep records): paysync backfill --from ${window.from} --to ${window.to} covers the day`,
    );
  } else {
    const gap = await request.coverage(window);
    if (gap) incomplete.push(gap);
  }
  const verdict: Verdict =
    breaks.length > 0
      ? 'BREAKS'
      : incomplete.length > 0
        ? 'INCOMPLETE'
        : pending.length > 0
          ? 'RECONCILED_WITH_PENDING'
          : 'RECONCILED';
  return {
    environment,
    day,
    timeZone,
    window,
    generatedAt: now.toISOString(),
    verdict,
    counts: await countsByStatus(db, window),
    money: await moneyIn(db, window),
    pending,
    breaks,
    endOfDayBalances: balances,
    incomplete,
    ageing: ageing(open, Math.min(now.getTime(), Date.parse(window.to))),
    expectationBreaks: [...expectationBreaks.values()].sort((a, b) => a.kind.localeCompare(b.kind)),
  };
}

/** Exit codes of `paysync report`: 0 for the reconciled verdicts, 3 breaks, 4 incomplete. */
export function verdictExitCode(verdict: Verdict): number {
  if (verdict === 'BREAKS') return 3;
  if (verdict === 'INCOMPLETE') return 4;
  return 0;
}
