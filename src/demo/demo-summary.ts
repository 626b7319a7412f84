import type { Kysely } from 'kysely';
import type { Database } from '../db/index.ts';
import type { Clock } from '../lifecycle/index.ts';
import { inboxStatusCounts } from '../inbox/index.ts';
import {
  accountBalances,
  countsByStatus,
  journalCount,
  openDiscrepancies,
  openDriftDetails,
  unbalancedJournals,
  type AccountBalance,
  type StatusCount,
} from '../ledger/index.ts';
import { countOpenAlerts } from '../alerts/index.ts';
import { latestSnapshots } from '../balances/index.ts';
import { dayOf } from '../books-calendar/index.ts';
import { buildDailyReport, type Verdict } from '../reports/index.ts';
import type { RunningSimulator } from '../sim/index.ts';
import type { TrafficCounts } from './demo-traffic.ts';

export interface WebhookFlow {
  /** Distinct events the simulator delivered with a 2xx. */
  readonly delivered: number;
  /** Delivery tries that failed (they are retried). */
  readonly failedTries: number;
  /** Inbox rows: events the receiver accepted and stored. */
  readonly received: number;
  /** Inbox rows done (processed or ignored). */
  readonly processed: number;
  /** Inbox rows still waiting for or in a worker. */
  readonly open: number;
  readonly unclassified: number;
  readonly failed: number;
}

/** One account's balance at its latest snapshot, against the ledger. */
export interface DriftLine {
  readonly accountType: string;
  readonly currency: string;
  readonly asOf: string;
  /** Service minus ledger while a `balance_drift` discrepancy is open, in minor units; else 0. */
  readonly drift: number;
}

/** What the demo's ops lines show. */
export interface OpsSummary {
  /** Latest snapshot of each account with its drift; empty before the first snapshot. */
  readonly drift: readonly DriftLine[];
  /** Alerts open or acknowledged, not resolved. */
  readonly openAlerts: number;
  /** The verdict of today's books so far (in the books' time zone). */
  readonly verdict: { readonly day: string; readonly timeZone: string; readonly verdict: Verdict };
}

/** One refresh of `paysync demo`'s screen. */
export interface DemoSummary {
  readonly elapsedMs: number;
  readonly generated: Readonly<TrafficCounts>;
  readonly statusCounts: readonly StatusCount[];
  readonly balances: readonly AccountBalance[];
  /** Per currency, the sum over every account: zero when the books balance. */
  readonly currencyTotals: readonly { readonly currency: string; readonly total: number }[];
  readonly journals: number;
  readonly unbalancedJournals: number;
  readonly openDiscrepancies: number;
  readonly webhooks: WebhookFlow;
  /** Drift, alerts and today's verdict; only when asked for (they cost a few reads). */
  readonly ops?: OpsSummary;
}

/** The books' environment and time zone, for the ops part of the summary. */
export interface OpsContext {
  readonly environment: string;
  readonly timeZone: string;
  readonly now: Clock;
}

async function collectOps(db: Kysely<Database>, context: OpsContext): Promise<OpsSummary> {
  const snapshots = await latestSnapshots(db, context.environment);
  const drifts = await openDriftDetails(db);
  const open = new Map<string, number>();
  // Newest first: the newest open drift of an account is the one to show.
  for (const row of drifts.reverse()) {
    const detail = JSON.parse(row) as {
      accountType?: string;
      currency?: string;
      difference?: number;
    };
    open.set(`${detail.accountType}|${detail.currency}`, Number(detail.difference ?? 0));
  }
  const now = context.now();
  const day = dayOf(now, context.timeZone);
  const report = await buildDailyReport({
    db,
    environment: context.environment,
    day,
    timeZone: context.timeZone,
    now,
  });
  return {
    drift: snapshots.map((s) => ({
      accountType: s.accountType,
      currency: s.currency,
      asOf: s.asOf,
      drift: open.get(`${s.accountType}|${s.currency}`) ?? 0,
    })),
    openAlerts: await countOpenAlerts(db),
    verdict: { day, timeZone: context.timeZone, verdict: report.verdict },
  };
}

/** Reads the summary from the demo's database and simulator. */
export async function collectDemoSummary(
  db: Kysely<Database>,
  sim: RunningSimulator,
  generated: Readonly<TrafficCounts>,
  elapsedMs: number,
  ops?: OpsContext,
): Promise<DemoSummary> {
  const balances = await accountBalances(db);
  const totals = new Map<string, number>();
  for (const line of balances) {
    totals.set(line.currency, (totals.get(line.currency) ?? 0) + line.balance);
  }
  const journals = await journalCount(db);
  const inbox = await inboxStatusCounts(db);
  const attempts = sim.control.webhookAttempts();
  const delivered = new Set(
    attempts.filter((a) => a.outcome === 'delivered').map((a) => a.eventId),
  );
  return {
    elapsedMs,
    generated: { ...generated },
    statusCounts: await countsByStatus(db),
    balances,
    currencyTotals: [...totals].map(([currency, total]) => ({ currency, total })),
    journals,
    unbalancedJournals: (await unbalancedJournals(db)).length,
    openDiscrepancies: (await openDiscrepancies(db, { limit: 100_000 })).length,
    webhooks: {
      delivered: delivered.size,
      failedTries: attempts.filter((a) => a.outcome === 'failed').length,
      received: [...inbox.values()].reduce((sum, n) => sum + n, 0),
      processed: inbox.get('processed') ?? 0,
      open: (inbox.get('received') ?? 0) + (inbox.get('processing') ?? 0),
      unclassified: inbox.get('unclassified') ?? 0,
      failed: inbox.get('failed') ?? 0,
    },
    ...(ops ? { ops: await collectOps(db, ops) } : {}),
  };
}
