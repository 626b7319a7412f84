import type { Kysely } from 'kysely';
import { pino } from 'pino';
import { takeBalanceSnapshot } from '../../../src/balances/index.ts';
import type { Database } from '../../../src/db/index.ts';
import { insertInboxEvent, markInboxStatus } from '../../../src/inbox/index.ts';
import { recordInboxResource } from '../../../src/inbox/index.ts';
import { recordDiscrepancy } from '../../../src/ledger/index.ts';
import type { Queues } from '../../../src/queues/index.ts';
import {
  CredentialGuard,
  syncResource,
  type SyncDependencies,
} from '../../../src/reconcile/index.ts';
import { buildDailyReport, storeVerdict } from '../../../src/reports/index.ts';
import { dayOf, previousDay } from '../../../src/books-calendar/index.ts';
import type { RunningSimulator, SimulatorOptions } from '../../../src/sim/index.ts';
import { createUpstreamClient } from '../../../src/upstream/index.ts';
import { createSyncedTransfer } from '../../support/synced-transfer.ts';

/** The description of the failed transfer: a script that must only ever show as text. */
export const HOSTILE_DESCRIPTION = '<script>document.title="pwned"</script><b>bold?</b>';

/** Two funded accounts, so the balance chart has two series. */
export const DAY_SIM_OPTIONS: SimulatorOptions = {
  freezeClock: true,
  // Inside today (UTC, the books' zone in these tests) and behind real time, so what the
  // service stamps counts as "today" and never lies in the future.
  startAt: new Date(Math.max(Date.now() - 3_600_000, Date.UTC(...todayUtc()) + 1_000)),
  initialBalances: [
    { accountType: 'transfer', currency: 'XOF', amount: 1_000_000 },
    { accountType: 'collection', currency: 'XOF', amount: 400_000 },
  ],
};

function todayUtc(): [number, number, number] {
  const now = new Date();
  return [now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()];
}

export interface SimulatedDay {
  readonly failedTransferId: string;
  readonly okTransferId: string;
  readonly discrepancyId: number;
  /** The processed webhook that announced the failed transfer. */
  readonly failedInboxId: number;
  readonly yesterday: string;
  readonly dayBefore: string;
}

/** What {@link addFailedTransfer} needs: the same parts as {@link simulateDay}. */
export interface DayParts {
  db: Kysely<Database>;
  sim: RunningSimulator;
  queues: Queues;
}

function syncDependencies(input: DayParts): SyncDependencies {
  const logger = pino({ level: 'silent' });
  const upstream = createUpstreamClient({
    now: () => new Date(),
    baseUrl: input.sim.url,
    ...input.sim.credentials,
    rps: 1000,
    maxRetries: 0,
  });
  return {
    db: input.db,
    queues: input.queues,
    upstream,
    logger,
    credentials: new CredentialGuard(input.db, input.queues, logger),
    transferSearchHours: 2,
    environment: 'sandbox',
    now: () => new Date(),
  };
}

/** One more transfer that fails today (the recipient does not exist), mirrored once it has failed. */
export async function addFailedTransfer(input: DayParts, description: string): Promise<string> {
  const created = input.sim.control.createTransfer({
    amount: 5_000,
    description,
    destination: { number: '+221770009901' },
  });
  input.sim.control.advance(10_000);
  const target = {
    kind: 'transfer' as const,
    id: created.id,
    reference: String(created.resource.reference),
    via: 'poll' as const,
  };
  await syncResource(syncDependencies(input), target, { attempt: 1 });
  return created.id;
}

/**
 * A day of the business through the real sync path against the simulator: a transfer that
 * fails (with a hostile description), one that succeeds, balance snapshots before and after,
 * an open break, and the stored verdicts of yesterday and the day before.
 */
export async function simulateDay(input: DayParts): Promise<SimulatedDay> {
  const { db, sim } = input;
  const deps = syncDependencies(input);
  const { upstream, logger } = deps;
  const snapshot = async () => {
    const outcome = await takeBalanceSnapshot(
      { db, upstream, logger, environment: 'sandbox', now: () => new Date() },
      { at: sim.control.now() },
    );
    if (!outcome.ok) throw new Error(outcome.problem);
  };
  await snapshot();
  const create = (amount: number, number: string, description: string) =>
    createSyncedTransfer(deps, sim, { amount, number, description });
  const failed = await create(150_000, '+221770009901', HOSTILE_DESCRIPTION);
  const ok = await create(250_000, '+221770001234', 'supplier payout');
  sim.control.advance(10_000);
  for (const id of [failed, ok]) {
    await syncResource(deps, { kind: 'transfer', id, via: 'poll' }, { attempt: 1 });
  }
  // The failure also arrived as a webhook, processed: the item page lists it, with Replay.
  const eventBody = {
    id: `evt_${failed}`,
    type: 'transfer.failed',
    data: { object: { id: failed } },
  };
  const { inboxId: failedInboxId } = await insertInboxEvent(db, {
    receivedAt: new Date(),
    dedupeKey: `event:${eventBody.id}`,
    eventId: eventBody.id,
    eventType: eventBody.type,
    rawBody: Buffer.from(JSON.stringify(eventBody)),
    headers: { 'content-type': 'application/json' },
  });
  await recordInboxResource(db, failedInboxId, { kind: 'transfer', id: failed });
  await markInboxStatus(db, failedInboxId, 'processed', { at: new Date() });
  sim.control.advance(60_000);
  await snapshot();
  const { discrepancy } = await recordDiscrepancy(db, {
    createdAt: new Date().toISOString(),
    kind: 'amount_changed',
    resourceKind: 'transfer',
    resourceId: ok,
    detail: { before: 250_000, after: 250_100, currency: 'XOF' },
  });
  const today = dayOf(new Date(), 'UTC');
  const yesterday = previousDay(today);
  const dayBefore = previousDay(yesterday);
  for (const day of [dayBefore, yesterday]) {
    await storeVerdict(
      db,
      await buildDailyReport({ db, environment: 'sandbox', day, timeZone: 'UTC', now: new Date() }),
    );
  }
  return {
    failedTransferId: failed,
    okTransferId: ok,
    discrepancyId: discrepancy.id,
    failedInboxId,
    yesterday,
    dayBefore,
  };
}
