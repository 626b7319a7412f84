import type { Kysely } from 'kysely';
import type { Database } from '../../../src/db/index.ts';
import {
  listResources,
  unbalancedJournals,
  type LedgerResourceKind,
} from '../../../src/ledger/index.ts';
import type { RunningSimulator } from '../../../src/sim/index.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { until } from '../../support/until.ts';

const KINDS: readonly LedgerResourceKind[] = [
  'payment_intent',
  'transfer',
  'refund',
  'payment_refund',
];

/** How far the mirror is from the simulator's truth; every list empty means caught up. */
export interface EndState {
  readonly items: number;
  readonly byKind: Record<string, number>;
  /** `kind id: mirror X, truth Y` (or missing). */
  readonly statusMismatches: string[];
  readonly unbalancedJournals: string[];
  /** Settled items without exactly one settlement journal, and unsettled items with one. */
  readonly settlementProblems: string[];
  /** Inbox rows not processed, by status. */
  readonly openInbox: Record<string, number>;
}

export async function compareWithTruth(
  db: Kysely<Database>,
  sim: RunningSimulator,
): Promise<EndState> {
  const truth = sim.control
    .groundTruth()
    .items.filter((item) => (KINDS as readonly string[]).includes(item.kind));
  const mirror = new Map<string, string>();
  for (const kind of KINDS) {
    for (const record of await listResources(db, kind, { limit: 1_000_000 })) {
      mirror.set(`${kind} ${record.id}`, record.status);
    }
  }
  const journals = await db
    .selectFrom('journals')
    .select(['resource_kind', 'resource_id', (eb) => eb.fn.countAll<number>().as('count')])
    .where('entry_type', '=', 'settlement')
    .groupBy(['resource_kind', 'resource_id'])
    .execute();
  const settlements = new Map(
    journals.map((j) => [`${j.resource_kind} ${j.resource_id}`, Number(j.count)]),
  );
  const statusMismatches: string[] = [];
  const settlementProblems: string[] = [];
  const byKind: Record<string, number> = {};
  for (const item of truth) {
    const key = `${item.kind} ${item.id}`;
    byKind[item.kind] = (byKind[item.kind] ?? 0) + 1;
    const status = mirror.get(key);
    if (status !== item.status)
      statusMismatches.push(`${key}: mirror ${status ?? 'missing'}, truth ${item.status}`);
    const count = settlements.get(key) ?? 0;
    const expected = item.status === 'successful' ? 1 : 0;
    if (count !== expected)
      settlementProblems.push(`${key} (${item.status}): ${count} settlement journals`);
  }
  const open = await db
    .selectFrom('webhook_inbox')
    .select(['status', (eb) => eb.fn.countAll<number>().as('count')])
    .where('status', '!=', 'processed')
    .groupBy('status')
    .execute();
  return {
    items: truth.length,
    byKind,
    statusMismatches,
    unbalancedJournals: (await unbalancedJournals(db)).map(
      (j) => `journal ${j.journalId} (${j.resourceKind} ${j.resourceId}) ${j.currency}: ${j.sum}`,
    ),
    settlementProblems,
    openInbox: Object.fromEntries(open.map((row) => [row.status, Number(row.count)])),
  };
}

export function caughtUp(state: EndState): boolean {
  return (
    state.statusMismatches.length === 0 &&
    state.unbalancedJournals.length === 0 &&
    state.settlementProblems.length === 0 &&
    Object.keys(state.openInbox).length === 0
  );
}

/**
 * Polls until the mirror has caught up with the simulator, or the time is up; returns the last
 * state either way, so the caller's assertions say what differs.
 */
export async function waitForCatchUp(
  db: Kysely<Database>,
  sim: RunningSimulator,
  timeoutMs: number,
  intervalMs = 500,
): Promise<EndState> {
  const deadline = Date.now() + timeoutMs;
  await Promise.race([sim.control.webhooksIdle(), sleep(timeoutMs, undefined, { ref: false })]);
  let state: EndState | undefined;
  await until(async () => (state = await compareWithTruth(db, sim)), {
    accept: caughtUp,
    message: 'the mirror to catch up with the simulator',
    timeoutMs: Math.max(0, deadline - Date.now()),
    intervalMs,
  }).catch(() => undefined); // the caller's assertions say what differs
  return state ?? compareWithTruth(db, sim);
}

/** A short, readable summary for a failed expectation. */
export function describeState(state: EndState): Record<string, unknown> {
  return {
    items: state.items,
    byKind: state.byKind,
    statusMismatches: state.statusMismatches.length,
    firstMismatches: state.statusMismatches.slice(0, 5),
    unbalancedJournals: state.unbalancedJournals.slice(0, 5),
    settlementProblems: state.settlementProblems.slice(0, 5),
    openInbox: state.openInbox,
  };
}
