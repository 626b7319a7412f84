import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { addToOutbox, notifyOutbox, outboxJobId } from '../../src/outbox/index.ts';
import type { FollowUpJobData } from '../../src/queues/index.ts';
import { createDaemonFixture, type DaemonFixture } from '../processing/support/daemon-fixture.ts';
import { testDialect } from '../support/test-database.ts';

let fixture: DaemonFixture | undefined;
afterEach(async () => {
  await fixture?.cleanup();
  fixture = undefined;
});

/** A generic alert follow-up, as any component writes one (docs/alerts.md). */
function alertPayload(subject: string) {
  return {
    reason: 'raise',
    alert: { kind: 'discrepancy', subject, title: `batch test ${subject}` },
  } as const;
}

async function alertsAbout(fixture: DaemonFixture, subjects: readonly string[]) {
  return fixture.database.db
    .selectFrom('alerts')
    .select(['subject', 'occurrences'])
    .where('subject', 'in', subjects)
    .orderBy('subject')
    .execute();
}

async function consumed(fixture: DaemonFixture, ids: readonly number[]) {
  const rows = await fixture.database.db
    .selectFrom('outbox')
    .select(['id', 'consumed_at'])
    .where('id', 'in', ids)
    .orderBy('id')
    .execute();
  return rows.map((row) => row.consumed_at !== null);
}

describe(`follow-ups in batches, on ${testDialect()}`, () => {
  it('a failing row is retried alone while the others of its batch are consumed once', async () => {
    fixture = await createDaemonFixture();
    const { db } = fixture.database;
    // The database refuses to stamp one row (a sink's transaction failing, as a crash would):
    // its alert rolls back with the stamp.
    if (testDialect() === 'postgres') {
      await sql`create function refuse_one() returns trigger language plpgsql as $$
        begin raise exception 'simulated failure of one follow-up'; end $$`.execute(db);
      await sql`create trigger refuse_one before update of consumed_at on outbox
        for each row when (new.consumed_at is not null and old.dedupe_key = 'alert:batch-2')
        execute function refuse_one()`.execute(db);
    } else {
      await sql`create trigger refuse_one before update of consumed_at on outbox
        when new.consumed_at is not null and old.dedupe_key = 'alert:batch-2'
        begin select raise(abort, 'simulated failure of one follow-up'); end`.execute(db);
    }
    const daemon = await fixture.startDaemon(['workers']);
    // Held while the rows are written, so that the three go out in one pass.
    daemon.outbox!.pause();
    const subjects = ['tr_batch000001', 'tr_batch000002', 'tr_batch000003'];
    const ids: number[] = [];
    for (const [n, subject] of subjects.entries()) {
      const added = await addToOutbox(db, {
        createdAt: new Date().toISOString(),
        kind: 'alert',
        dedupeKey: `alert:batch-${n + 1}`,
        payload: alertPayload(subject),
      });
      ids.push(added.id);
    }
    daemon.outbox!.resume();
    notifyOutbox();

    // The two others are done; the failing one is back in the queue alone and has failed there.
    await expect
      .poll(() => consumed(fixture!, ids), { timeout: 30_000, interval: 100 })
      .toEqual([true, false, true]);
    await expect
      .poll(
        async () => (await daemon.queues.followUp.getJob(outboxJobId(ids[1]!)))?.attemptsMade ?? 0,
        { timeout: 30_000, interval: 100 },
      )
      .toBeGreaterThanOrEqual(1);
    const batches = await daemon.queues.followUp.getJobs(['completed']);
    expect(
      batches.map((job) => [job.name, job.data.type === 'batch' ? job.data.rows.length : 1]),
    ).toEqual([['follow-ups', 3]]);
    // The job's failed attempt is counted before its error is written to the row: wait for both.
    await expect
      .poll(
        async () =>
          (
            await db
              .selectFrom('outbox')
              .select('last_error')
              .where('id', '=', ids[1]!)
              .executeTakeFirstOrThrow()
          ).last_error,
        { timeout: 30_000, interval: 100 },
      )
      .toContain('simulated failure of one follow-up');

    await sql`drop trigger refuse_one${sql.raw(testDialect() === 'postgres' ? ' on outbox' : '')}`.execute(
      db,
    );
    await expect
      .poll(() => consumed(fixture!, ids), { timeout: 30_000, interval: 100 })
      .toEqual([true, true, true]);
    // Each alert raised once: the retry of the failing row ran neither of the others again.
    expect(await alertsAbout(fixture, subjects)).toEqual(
      subjects.map((subject) => ({ subject, occurrences: 1 })),
    );
  }, 120_000);

  it('an alert is raised while the receipts of its pass wait: receipts have a queue of their own', async () => {
    fixture = await createDaemonFixture();
    const { db } = fixture.database;
    const daemon = await fixture.startDaemon(['workers']);
    // Receipts that cannot run (as when they wait for the budget the books leave them).
    await daemon.queues.receipts.pause();
    daemon.outbox!.pause();
    const createdAt = new Date().toISOString();
    const receiptIds: number[] = [];
    for (let n = 0; n < 150; n += 1) {
      const id = `tr_rcptq${String(n).padStart(6, '0')}`;
      const added = await addToOutbox(db, {
        createdAt,
        kind: 'receipt',
        dedupeKey: `receipt:transfer:${id}:successful`,
        payload: { kind: 'transfer', id, status: 'successful' },
      });
      receiptIds.push(added.id);
    }
    // Written after them, so that it goes out in the receipts' passes.
    const alert = await addToOutbox(db, {
      createdAt,
      kind: 'alert',
      dedupeKey: 'alert:behind-receipts',
      payload: alertPayload('tr_rcptqalert1'),
    });
    daemon.outbox!.resume();
    notifyOutbox();

    await expect
      .poll(() => consumed(fixture!, [alert.id]), { timeout: 30_000, interval: 100 })
      .toEqual([true]);
    expect(await alertsAbout(fixture, ['tr_rcptqalert1'])).toEqual([
      { subject: 'tr_rcptqalert1', occurrences: 1 },
    ]);
    // Every receipt still waits, in its own queue: none is consumed, none is in the follow-ups'.
    expect((await consumed(fixture, receiptIds)).filter(Boolean)).toEqual([]);
    const waiting = await daemon.queues.receipts.getJobs(['paused', 'waiting']);
    expect(
      waiting
        .flatMap((job) =>
          job.data.type === 'batch'
            ? job.data.rows.map((row) => row.outboxId)
            : [job.data.outboxId],
        )
        .sort((a, b) => a! - b!),
    ).toEqual(receiptIds);
    const followUps = await daemon.queues.followUp.getJobs(['completed', 'waiting', 'active']);
    expect(
      followUps.flatMap((job) =>
        job.data.type === 'batch' ? job.data.rows.map((row) => row.type) : [job.data.type],
      ),
    ).toEqual(['alert']);
  }, 60_000);

  it('a one-row job enqueued before the upgrade (data with one outboxId) is still consumed', async () => {
    fixture = await createDaemonFixture();
    const { db } = fixture.database;
    const daemon = await fixture.startDaemon(['workers']);
    daemon.outbox!.pause();
    const payload = alertPayload('tr_oldjob00001');
    const added = await addToOutbox(db, {
      createdAt: new Date().toISOString(),
      kind: 'alert',
      dedupeKey: 'alert:old-job',
      payload,
    });
    // As the dispatcher before the batches stamped and enqueued it.
    await db
      .updateTable('outbox')
      .set({ dispatched_at: new Date().toISOString() })
      .where('id', '=', added.id)
      .execute();
    await daemon.queues.followUp.add(
      'alert',
      { ...payload, type: 'alert', outboxId: added.id } as unknown as FollowUpJobData,
      { jobId: outboxJobId(added.id), removeOnComplete: { age: 86_400 } },
    );
    await expect
      .poll(() => consumed(fixture!, [added.id]), { timeout: 30_000, interval: 100 })
      .toEqual([true]);
    const job = await daemon.queues.followUp.getJob(outboxJobId(added.id));
    expect(String(job?.returnvalue)).toMatch(/^alert \d+ /);
    expect(await alertsAbout(fixture, ['tr_oldjob00001'])).toEqual([
      { subject: 'tr_oldjob00001', occurrences: 1 },
    ]);
  }, 60_000);
});
