import { Worker } from 'bullmq';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { loadConfig } from '../../src/config/index.ts';
import {
  addToOutbox,
  createOutboxDispatcher,
  dispatchOutbox,
  markOutboxConsumed,
  openOutboxEntries,
  outboxBatchJobId,
  outboxJobId,
} from '../../src/outbox/index.ts';
import { createQueues, createRedisConnection, QueueName } from '../../src/queues/index.ts';
import { syncResource } from '../../src/reconcile/index.ts';
import { closedPort } from '../support/run-cli.ts';
import { failByStalls, runJob, STALL_LIMIT_REASON } from '../support/stalled-job.ts';
import { testDialect } from '../support/test-database.ts';
import { createSyncContext, type SyncContext } from '../processing/support/sync-context.ts';

let context: SyncContext;
beforeEach(async () => {
  context = await createSyncContext();
});
afterEach(async () => {
  await context.cleanup();
});

function failedTransfer(): string {
  const transfer = context.sim.control.createTransfer({
    amount: 7300,
    destination: { number: '+221770009901' },
  });
  context.sim.control.settle(transfer.id, 'failed');
  return transfer.id;
}

async function outboxRows() {
  return context.database.db.selectFrom('outbox').selectAll().orderBy('id').execute();
}

/** Outbox rows of the receipts of these successful transfers, as a sync adds them; their ids. */
async function receiptRows(transferIds: readonly string[]): Promise<number[]> {
  const ids: number[] = [];
  for (const id of transferIds) {
    const added = await addToOutbox(context.database.db, {
      kind: 'receipt',
      dedupeKey: `receipt:transfer:${id}:successful`,
      payload: { kind: 'transfer', id, status: 'successful' },
      createdAt: new Date().toISOString(),
    });
    ids.push(added.id);
  }
  return ids;
}

/** A clock this many minutes ahead of now. */
function at(minutes: number) {
  return () => new Date(Date.now() + minutes * 60_000);
}

describe(`the transactional outbox on ${testDialect()}`, () => {
  it('a failed transfer writes its alert and receipt to the outbox in the sync transaction, and nothing to Redis', async () => {
    const id = failedTransfer();
    const result = await syncResource(
      context.deps,
      { kind: 'transfer', id, via: 'poll' },
      { attempt: 1 },
    );
    expect(result.outcome).toBe('synced');
    const rows = await outboxRows();
    expect(rows.map((row) => [row.kind, row.dedupe_key, row.dispatched_at])).toEqual([
      ['alert', `alert:transfer_failed:transfer:${id}`, null],
      ['receipt', `receipt:transfer:${id}:failed`, null],
    ]);
    expect(JSON.parse(rows[0]!.payload)).toMatchObject({ reason: 'transfer_failed', id });
    // No post-commit enqueue any more: the queue is empty until the dispatcher runs.
    expect(await context.queues.followUp.count()).toBe(0);
    expect(await context.queues.receipts.count()).toBe(0);

    // A replayed sync of the same state adds nothing.
    await syncResource(context.deps, { kind: 'transfer', id, via: 'replay' }, { attempt: 1 });
    expect(await outboxRows()).toHaveLength(2);
  });

  it('the dispatcher hands a pass to the queues once: its alert to the follow-up queue, its receipt to the receipts queue', async () => {
    const id = failedTransfer();
    await syncResource(context.deps, { kind: 'transfer', id, via: 'poll' }, { attempt: 1 });
    const first = await dispatchOutbox({
      now: () => new Date(),
      db: context.database.db,
      queues: context.queues,
    });
    expect(first).toEqual({ dispatched: 2, more: false, revived: [] });
    const rows = await outboxRows();
    expect(rows.every((row) => row.dispatched_at !== null)).toBe(true);
    const ids = rows.map((row) => Number(row.id));
    // Each queue holds its row alone: a receipt, which waits for its share of the service's
    // budget, never holds an alert.
    const alerts = await context.queues.followUp.getJobs(['waiting', 'prioritized']);
    expect(alerts.map((job) => [job.id, job.name])).toEqual([[outboxJobId(ids[0]!), 'alert']]);
    expect(alerts[0]!.data).toMatchObject({
      type: 'alert',
      reason: 'transfer_failed',
      id,
      outboxId: ids[0],
    });
    const receipts = await context.queues.receipts.getJobs(['waiting', 'prioritized']);
    expect(receipts.map((job) => [job.id, job.name])).toEqual([[outboxJobId(ids[1]!), 'receipt']]);
    expect(receipts[0]!.data).toMatchObject({
      type: 'receipt',
      kind: 'transfer',
      id,
      status: 'failed',
      outboxId: ids[1],
    });

    // Nothing left to hand out; rows handed out twice (their stamp lost) are still one job.
    expect(
      await dispatchOutbox({
        now: () => new Date(),
        db: context.database.db,
        queues: context.queues,
      }),
    ).toEqual({
      dispatched: 0,
      more: false,
      revived: [],
    });
    await context.database.db.updateTable('outbox').set({ dispatched_at: null }).execute();
    expect(
      (
        await dispatchOutbox({
          now: () => new Date(),
          db: context.database.db,
          queues: context.queues,
        })
      ).dispatched,
    ).toBe(2);
    expect(await context.queues.followUp.count()).toBe(1);
    expect(await context.queues.receipts.count()).toBe(1);
  });

  it('PAYSYNC_OUTBOX_BATCH_SIZE rows make one job: 250 rows are three jobs, not 250', async () => {
    const config = loadConfig({ PAYSYNC_OUTBOX_BATCH_SIZE: '100' });
    expect(config.processing.outboxBatchSize).toBe(100);
    expect(loadConfig({}).processing.outboxBatchSize).toBe(100);
    expect(() => loadConfig({ PAYSYNC_OUTBOX_BATCH_SIZE: '0' })).toThrow(
      /PAYSYNC_OUTBOX_BATCH_SIZE/,
    );
    const db = context.database.db;
    const createdAt = new Date().toISOString();
    for (let n = 0; n < 250; n += 1) {
      await addToOutbox(db, {
        kind: 'receipt',
        dedupeKey: `receipt:transfer:tr_batch${n}:successful`,
        payload: { kind: 'transfer', id: `tr_batch${n}`, status: 'successful' },
        createdAt,
      });
    }
    const passes = [];
    for (;;) {
      const pass = await dispatchOutbox({
        now: () => new Date(),
        db,
        queues: context.queues,
        batchSize: config.processing.outboxBatchSize,
      });
      passes.push(pass);
      if (!pass.more) break;
    }
    expect(passes).toEqual([
      { dispatched: 100, more: true, revived: [] },
      { dispatched: 100, more: true, revived: [] },
      { dispatched: 50, more: false, revived: [] },
    ]);
    expect(await context.queues.followUp.count()).toBe(0);
    const jobs = await context.queues.receipts.getJobs(['waiting', 'prioritized']);
    expect(jobs).toHaveLength(3);
    const carried = jobs.flatMap((job) =>
      job.data.type === 'batch' ? job.data.rows.map((row) => row.outboxId) : [],
    );
    const ids = (await outboxRows()).map((row) => Number(row.id));
    // Every row in exactly one job.
    expect(carried.sort((a, b) => a - b)).toEqual(ids);
  });

  it('a row handed out but never consumed goes out again once Redis lost its job', async () => {
    const id = failedTransfer();
    await syncResource(context.deps, { kind: 'transfer', id, via: 'poll' }, { attempt: 1 });
    const db = context.database.db;
    expect(
      (await dispatchOutbox({ now: () => new Date(), db, queues: context.queues })).dispatched,
    ).toBe(2);
    // The alert was consumed; the receipt's job is lost with Redis (as in a FLUSHALL).
    const [alertRow] = await openOutboxEntries(db, { kind: 'alert' });
    await markOutboxConsumed(db, alertRow!.id, new Date().toISOString());
    await context.queues.receipts.obliterate({ force: true });
    expect(await context.queues.receipts.count()).toBe(0);
    // Not before redispatchAfterMs…
    expect(
      (await dispatchOutbox({ now: () => new Date(), db, queues: context.queues })).dispatched,
    ).toBe(0);
    // …then the unconsumed receipt, and only it, goes out again under its own job id.
    const later = await dispatchOutbox({
      db,
      queues: context.queues,
      now: () => new Date(Date.now() + 6 * 60_000),
    });
    expect(later.dispatched).toBe(1);
    const jobs = await context.queues.receipts.getJobs(['waiting', 'prioritized']);
    const [receiptRow] = await openOutboxEntries(db, { kind: 'receipt' });
    expect(jobs.map((job) => job.id)).toEqual([`outbox-${receiptRow!.id}`]);
  });

  it('rows whose batch Redis lost go out again as one batch; a row whose consumer failed goes alone', async () => {
    const db = context.database.db;
    const ids = await receiptRows(['tr_lost1', 'tr_lost2', 'tr_lost3']);
    expect((await dispatchOutbox({ now: at(0), db, queues: context.queues })).dispatched).toBe(3);
    // The batch ran: the first row's consumer failed (and went back alone), then Redis lost all.
    await db
      .updateTable('outbox')
      .set({ last_error: 'the service answered 500' })
      .where('id', '=', ids[0]!)
      .execute();
    await context.queues.receipts.obliterate({ force: true });
    const jobIds = async () =>
      (await context.queues.receipts.getJobs(['waiting', 'prioritized']))
        .map((job) => job.id)
        .sort();
    expect((await dispatchOutbox({ now: at(6), db, queues: context.queues })).dispatched).toBe(3);
    const expected = [outboxJobId(ids[0]!), outboxBatchJobId(ids.slice(1))].sort();
    expect(await jobIds()).toEqual(expected);
    // Still not consumed five minutes later: the same jobs again, which BullMQ ignores.
    expect((await dispatchOutbox({ now: at(12), db, queues: context.queues })).dispatched).toBe(3);
    expect(await jobIds()).toEqual(expected);
  });

  it('a batch BullMQ failed because its workers died under it goes out again; a row whose consumer failed every try does not', async () => {
    const db = context.database.db;
    const ids = await receiptRows(['tr_stall1', 'tr_stall2', 'tr_stall3']);
    expect((await dispatchOutbox({ now: at(0), db, queues: context.queues })).dispatched).toBe(3);
    const batchId = outboxBatchJobId(ids);
    const { receipts: followUp } = context.queues;
    // A worker takes the batch and dies under it; the next finds it stalled past the limit:
    // BullMQ fails it for good, with every row still unconsumed.
    await failByStalls(followUp, batchId);
    // A row that went alone and whose consumer failed its last try: that one stays failed.
    const alone = (await receiptRows(['tr_stall4']))[0]!;
    expect((await dispatchOutbox({ now: at(0), db, queues: context.queues })).dispatched).toBe(1);
    await followUp.remove(outboxJobId(alone));
    await followUp.add('receipt', { type: 'receipt', outboxId: alone } as never, {
      jobId: outboxJobId(alone),
      attempts: 1,
    });
    const failing = new Worker(
      QueueName.receipts,
      async () => {
        throw new Error('the service answered 500');
      },
      { connection: followUp.opts.connection, prefix: context.queues.prefix },
    );
    try {
      await expect
        .poll(async () => (await followUp.getJob(outboxJobId(alone)))?.failedReason, {
          timeout: 10_000,
        })
        .toBe('the service answered 500');
    } finally {
      await failing.close();
    }

    // Five minutes on, the rows are stale: the failed batch is handed out again, under its own
    // id, with every try ahead of it; the row that failed for good is left to the operator.
    const later = await dispatchOutbox({ now: at(6), db, queues: context.queues });
    expect(later.dispatched).toBe(4);
    expect(later.revived).toEqual([{ jobId: batchId, rows: 3, reason: STALL_LIMIT_REASON }]);
    const batch = await followUp.getJob(batchId);
    expect([await batch?.getState(), batch?.attemptsMade]).toEqual(['waiting', 0]);
    expect(await followUp.getJobState(outboxJobId(alone))).toBe('failed');
    // And it runs: nothing of the stalls that failed it is left on the new job.
    await runJob(followUp, batchId);
  });

  it('the dispatcher hands a lost job out again after PAYSYNC_OUTBOX_REDISPATCH_SECONDS', async () => {
    const config = loadConfig({ PAYSYNC_OUTBOX_REDISPATCH_SECONDS: '1' });
    expect(config.processing.outboxRedispatchMs).toBe(1000);
    expect(loadConfig({}).processing.outboxRedispatchMs).toBe(300_000);
    const id = failedTransfer();
    await syncResource(context.deps, { kind: 'transfer', id, via: 'poll' }, { attempt: 1 });
    const dispatcher = createOutboxDispatcher({
      now: () => new Date(),
      db: context.database.db,
      queues: context.queues,
      logger: pino({ level: 'silent' }),
      pollMs: 100,
      redispatchAfterMs: config.processing.outboxRedispatchMs,
    });
    await dispatcher.start();
    // The rows each queue's jobs carry: the alert in the follow-up queue, the receipt apart.
    const carried = async () =>
      Promise.all(
        [context.queues.followUp, context.queues.receipts].map(async (queue) => {
          const jobs = await queue.getJobs(['waiting', 'prioritized']);
          return jobs.map((job) => (job.data.type === 'batch' ? job.data.rows.length : 1));
        }),
      );
    try {
      await expect.poll(carried, { timeout: 5000 }).toEqual([[1], [1]]);
      // While the jobs wait past the re-dispatch time, handing their rows out again adds nothing.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(await carried()).toEqual([[1], [1]]);
      // Redis loses the jobs (a FLUSHALL, a restart without persistence): neither row was consumed.
      await context.queues.followUp.obliterate({ force: true });
      await context.queues.receipts.obliterate({ force: true });
      expect(await carried()).toEqual([[], []]);
      // After a second, not five minutes, both go out again, each to its queue.
      await expect.poll(carried, { timeout: 5000 }).toEqual([[1], [1]]);
    } finally {
      await dispatcher.stop();
    }
  });

  it('a transaction that rolls back leaves no outbox row', async () => {
    await expect(
      context.database.db.transaction().execute(async (trx) => {
        await addToOutbox(trx, {
          kind: 'alert',
          dedupeKey: 'k1',
          payload: { reason: 'x' },
          createdAt: new Date().toISOString(),
        });
        throw new Error('the ledger change failed');
      }),
    ).rejects.toThrow('the ledger change failed');
    expect(await outboxRows()).toEqual([]);
  });

  it('a row not yet due waits; a same-key add is a no-op', async () => {
    const later = new Date(Date.now() + 60_000).toISOString();
    const first = await addToOutbox(context.database.db, {
      createdAt: new Date().toISOString(),
      kind: 'receipt',
      dedupeKey: 'receipt:transfer:tr_1:successful:try-2',
      payload: { kind: 'transfer', id: 'tr_1' },
      availableAt: later,
    });
    const again = await addToOutbox(context.database.db, {
      createdAt: new Date().toISOString(),
      kind: 'receipt',
      dedupeKey: 'receipt:transfer:tr_1:successful:try-2',
      payload: { kind: 'transfer', id: 'tr_1' },
    });
    expect(again).toEqual({ id: first.id, isNew: false });
    expect(
      (
        await dispatchOutbox({
          now: () => new Date(),
          db: context.database.db,
          queues: context.queues,
        })
      ).dispatched,
    ).toBe(0);
    const due = await dispatchOutbox({
      db: context.database.db,
      queues: context.queues,
      now: () => new Date(Date.now() + 120_000),
    });
    expect(due.dispatched).toBe(1);
  });

  it('when Redis refuses, the rows stay in the outbox with the reason, and go out once it answers', async () => {
    const id = failedTransfer();
    await syncResource(context.deps, { kind: 'transfer', id, via: 'poll' }, { attempt: 1 });
    const deadRedis = createRedisConnection(`redis://127.0.0.1:${await closedPort()}`, 'producer');
    const deadQueues = createQueues({ connection: deadRedis, prefix: 'paysync-test:dead' });
    try {
      await expect(
        dispatchOutbox({ now: () => new Date(), db: context.database.db, queues: deadQueues }),
      ).rejects.toThrow();
    } finally {
      await deadQueues.close();
      deadRedis.disconnect();
    }
    const waiting = await openOutboxEntries(context.database.db, { kind: 'alert' });
    expect(waiting).toHaveLength(1);
    const rows = await outboxRows();
    expect(rows.map((row) => [row.dispatched_at, Number(row.dispatch_attempts)])).toEqual([
      [null, 1],
      [null, 1],
    ]);
    expect(rows[0]!.last_error).toBeTruthy();
    expect(
      (
        await dispatchOutbox({
          now: () => new Date(),
          db: context.database.db,
          queues: context.queues,
        })
      ).dispatched,
    ).toBe(2);
  });
});
