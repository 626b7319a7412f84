import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/index.ts';
import { inboxStatusCounts } from '../inbox/index.ts';
import {
  accountBalances,
  countsByStatus,
  openDiscrepancies,
  unbalancedJournals,
  type AccountBalance,
  type StatusCount,
} from '../ledger/index.ts';
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
}

/** Reads the summary from the demo's database and simulator. */
export async function collectDemoSummary(
  db: Kysely<Database>,
  sim: RunningSimulator,
  generated: Readonly<TrafficCounts>,
  elapsedMs: number,
): Promise<DemoSummary> {
  const balances = await accountBalances(db);
  const totals = new Map<string, number>();
  for (const line of balances) {
    totals.set(line.currency, (totals.get(line.currency) ?? 0) + line.balance);
  }
  const journalRow = await db
    .selectFrom('journals')
    .select(sql<number>`count(*)`.as('count'))
    .executeTakeFirst();
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
    journals: Number(journalRow?.count ?? 0),
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
  };
}
