import type { Job } from 'bullmq';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JobContext } from '../../jobs/job-context.ts';
import { retentionJob } from '../../jobs/retention.job.ts';
import { loadConfig } from '../../src/config/index.ts';
import { findInboxEvent, insertInboxEvents, markInboxStatus } from '../../src/inbox/index.ts';
import {
  addToOutbox,
  isOutboxConsumed,
  markOutboxConsumed,
  openOutboxEntries,
} from '../../src/outbox/index.ts';
import type { ScheduledJobData } from '../../src/queues/index.ts';
import { recentRuns, recordScheduledRun } from '../../src/runs/index.ts';
import { freshDatabase, testDialect, type TestDatabase } from '../support/test-database.ts';

const NOW = new Date('2030-03-01T12:00:00.000Z');
const daysAgo = (days: number) => new Date(NOW.getTime() - days * 86_400_000);

/**
 * The scheduled task `retention`, as a worker runs it: one tick prunes what the default policy
 * lets go, never a row still in flight, and leaves its run record with the counts.
 */
describe(`the retention task on ${testDialect()}`, () => {
  let database: TestDatabase;
  beforeEach(async () => {
    database = await freshDatabase();
  });
  afterEach(async () => {
    await database.cleanup();
  });

  async function inboxRow(key: string, receivedDaysAgo: number, status?: 'processed' | 'failed') {
    const [stored] = await insertInboxEvents(database.db, [
      {
        dedupeKey: `event:${key}`,
        eventId: key,
        eventType: 'transfer.updated',
        rawBody: Buffer.from(`{"id":"${key}","data":{"object":{"id":"tr_${key}"}}}`),
        headers: { 'webhook-id': key },
        receivedAt: daysAgo(receivedDaysAgo),
        resource: { kind: 'transfer', id: `tr_${key}` },
      },
    ]);
    if (status === 'processed') {
      await markInboxStatus(database.db, stored!.inboxId, 'processed', {
        at: daysAgo(receivedDaysAgo),
      });
    } else if (status) {
      await markInboxStatus(database.db, stored!.inboxId, status, { lastError: 'boom' });
    }
    return stored!.inboxId;
  }

  it('prunes old processed bodies and consumed outbox rows, keeps open ones, records the run', async () => {
    const oldProcessed = await inboxRow('old', 40, 'processed');
    const recentProcessed = await inboxRow('recent', 5, 'processed');
    const oldFailed = await inboxRow('failed', 40, 'failed');
    const oldOpen = await inboxRow('open', 40);
    const consumed = await addToOutbox(database.db, {
      kind: 'receipt',
      payload: { id: 1 },
      createdAt: daysAgo(45).toISOString(),
    });
    await markOutboxConsumed(database.db, consumed.id, daysAgo(44).toISOString());
    const pending = await addToOutbox(database.db, {
      kind: 'receipt',
      payload: { id: 2 },
      createdAt: daysAgo(45).toISOString(),
    });

    // A task that has failed for 100 days: its first and latest runs stay, the one between goes.
    for (const days of [100, 99, 98]) {
      const at = daysAgo(days);
      await recordScheduledRun(
        { db: database.db, logger: pino({ level: 'silent' }), now: () => at },
        { task: 'balances', slot: at.toISOString() },
        async () => {
          throw new Error('credentials refused');
        },
      );
    }
    const context = {
      db: database.db,
      logger: pino({ level: 'silent' }),
      now: () => NOW,
      polling: loadConfig({}).polling,
      retention: loadConfig({}).retention,
    } as unknown as JobContext;
    const data: ScheduledJobData = { task: 'retention', slot: NOW.toISOString() };
    await retentionJob(context)({ data } as Job<ScheduledJobData>);

    const body = async (id: number) => (await findInboxEvent(database.db, id))!;
    expect((await body(oldProcessed)).bodyPrunedAt).toBe(NOW.toISOString());
    expect((await body(oldProcessed)).rawBody.length).toBe(0);
    for (const kept of [recentProcessed, oldFailed, oldOpen]) {
      expect((await body(kept)).bodyPrunedAt).toBeNull();
      expect((await body(kept)).rawBody.length).toBeGreaterThan(0);
    }
    // The consumed row is gone (the checkpoint below counts it); the pending one still waits.
    expect((await openOutboxEntries(database.db, { kind: 'receipt' })).map((e) => e.id)).toEqual([
      pending.id,
    ]);
    expect(await isOutboxConsumed(database.db, consumed.id)).toBe(false);
    const failing = await recentRuns(database.db, { task: 'balances' });
    expect(failing.map((r) => r.startedAt)).toEqual([
      daysAgo(98).toISOString(),
      daysAgo(100).toISOString(),
    ]);
    const [run] = await recentRuns(database.db, { task: 'retention' });
    expect(run).toMatchObject({
      trigger: 'schedule',
      outcome: 'succeeded',
      itemsSeen: 3,
      itemsChanged: 3,
    });
    expect(run!.checkpoint).toMatch(
      /^pruned webhook_inbox 1, outbox 1, scheduled_runs 1, alert_deliveries 0, audit_runs 0, relay_attempts 0, relay_deliveries 0, relay_events 0; longest batch [\d.]+ ms$/,
    );
  });
});
