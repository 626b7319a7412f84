import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import {
  createInboxIntake,
  findInboxEvent,
  InboxUnavailableError,
  insertInboxEvents,
  inboxRowsAwaitingRecovery,
  insertInboxEvent,
  markInboxStatus,
  type NewInboxEvent,
} from '../../src/inbox/index.ts';
import { createLogger } from '../../src/logger.ts';
import { freshDatabase, type TestDatabase } from '../support/test-database.ts';

let database: TestDatabase;
beforeEach(async () => {
  database = await freshDatabase();
});
afterEach(async () => {
  await database.cleanup();
});

function event(
  key: string,
  receivedAt: Date,
  bytes = Buffer.from(`{"id":"${key}"}`),
): NewInboxEvent {
  return {
    dedupeKey: `event:${key}`,
    eventId: key,
    eventType: 'transfer.updated',
    rawBody: bytes,
    headers: { 'webhook-id': key },
    receivedAt,
  };
}

describe('inbox repository', () => {
  it('stores raw bytes exactly (including bytes that are not UTF-8) and reads them back', async () => {
    const bytes = Buffer.from([0x7b, 0x7d, 0x00, 0xff, 0xfe, 0x0a]);
    const { inboxId, duplicate } = await insertInboxEvent(
      database.db,
      event('evt_a', new Date(), bytes),
    );
    expect(duplicate).toBe(false);
    const stored = await findInboxEvent(database.db, inboxId);
    expect(stored?.rawBody.equals(bytes)).toBe(true);
    expect(stored).toMatchObject({
      status: 'received',
      attempts: 0,
      headers: { 'webhook-id': 'evt_a' },
    });
    expect(await findInboxEvent(database.db, inboxId + 1000)).toBeUndefined();
  });

  it('reports a duplicate with the first row id and leaves that row untouched', async () => {
    const first = await insertInboxEvent(
      database.db,
      event('evt_b', new Date('2025-01-01T00:00:00.000Z')),
    );
    await markInboxStatus(database.db, first.inboxId, 'processed', {
      at: new Date('2025-01-01T00:00:05.000Z'),
    });
    const second = await insertInboxEvent(database.db, {
      ...event('evt_b', new Date(), Buffer.from('{"changed":true}')),
    });
    expect(second).toEqual({ inboxId: first.inboxId, duplicate: true });
    const stored = await findInboxEvent(database.db, first.inboxId);
    expect(stored).toMatchObject({
      status: 'processed',
      processedAt: '2025-01-01T00:00:05.000Z',
      receivedAt: '2025-01-01T00:00:00.000Z',
    });
    expect(stored!.rawBody.toString()).toBe('{"id":"evt_b"}');
  });

  it('an id-less repeat is a duplicate only while the first copy awaits pick-up (7.A2)', async () => {
    const body = Buffer.from('{"resourceId":"tr_a2repeat","resourceType":"transfer"}');
    const key = `sha256:${createHash('sha256').update(body).digest('hex')}`;
    const notification = (): NewInboxEvent => ({
      receivedAt: new Date(),
      dedupeKey: key,
      eventId: undefined,
      eventType: undefined,
      rawBody: body,
      headers: {},
    });
    const first = await insertInboxEvent(database.db, notification());
    // Still waiting for its ingest: that ingest's fetch comes after this repeat anyway.
    expect(await insertInboxEvent(database.db, notification())).toEqual({
      inboxId: first.inboxId,
      duplicate: true,
    });
    for (const pickedUp of ['processing', 'processed', 'failed', 'unclassified'] as const) {
      const before = await insertInboxEvent(database.db, notification());
      await markInboxStatus(database.db, before.inboxId, pickedUp, { at: new Date() });
      const repeat = await insertInboxEvent(database.db, notification());
      expect(repeat.duplicate).toBe(false);
      expect(repeat.inboxId).toBeGreaterThan(before.inboxId);
      // The earlier copy keeps its bytes and status; it only handed its key on.
      expect(await findInboxEvent(database.db, before.inboxId)).toMatchObject({
        status: pickedUp,
        dedupeKey: `${key}@${before.inboxId}`,
      });
      expect(await findInboxEvent(database.db, repeat.inboxId)).toMatchObject({
        status: 'received',
        dedupeKey: key,
      });
    }
    // Five receivers racing on a repeat after pick-up store it once.
    const latest = await insertInboxEvent(database.db, notification());
    await markInboxStatus(database.db, latest.inboxId, 'processed', { at: new Date() });
    const racing = await Promise.all(
      Array.from({ length: 5 }, () => insertInboxEvent(database.db, notification())),
    );
    expect(racing.filter((r) => !r.duplicate)).toHaveLength(1);
    expect(new Set(racing.map((r) => r.inboxId)).size).toBe(1);
    const rows = await database.db
      .selectFrom('webhook_inbox')
      .select('id')
      .where('raw_body', '=', body)
      .execute();
    expect(rows).toHaveLength(6);
  });

  it('an event with an id stays a duplicate after it was processed', async () => {
    const first = await insertInboxEvent(database.db, event('evt_kept', new Date()));
    await markInboxStatus(database.db, first.inboxId, 'processed', { at: new Date() });
    expect(await insertInboxEvent(database.db, event('evt_kept', new Date()))).toEqual({
      inboxId: first.inboxId,
      duplicate: true,
    });
  });

  it('two concurrent inserts of one event store it once', async () => {
    const results = await Promise.all(
      Array.from({ length: 5 }, () => insertInboxEvent(database.db, event('evt_race', new Date()))),
    );
    expect(results.filter((r) => !r.duplicate)).toHaveLength(1);
    expect(new Set(results.map((r) => r.inboxId)).size).toBe(1);
  });

  it('inserts many in one statement, in order, with duplicates in and out of the list', async () => {
    const stored = await insertInboxEvent(database.db, event('evt_old', new Date()));
    const results = await insertInboxEvents(database.db, [
      event('evt_n1', new Date()),
      event('evt_old', new Date()),
      event('evt_n2', new Date()),
      event('evt_n1', new Date(), Buffer.from('{"second":1}')),
    ]);
    expect(results.map((r) => r.duplicate)).toEqual([false, true, false, true]);
    expect(results[1]!.inboxId).toBe(stored.inboxId);
    expect(results[3]!.inboxId).toBe(results[0]!.inboxId);
    expect((await findInboxEvent(database.db, results[0]!.inboxId))!.rawBody.toString()).toBe(
      '{"id":"evt_n1"}',
    );
  });

  it('group-commits concurrent accepts: each answered after its commit, one row per key', async () => {
    const enqueued: number[][] = [];
    const intake = createInboxIntake(database.db, {
      enqueue: async (stored) => {
        enqueued.push(stored.map((row) => row.inboxId));
      },
      logger: createLogger({ level: 'silent', pretty: false }),
    });
    const keys = Array.from({ length: 60 }, (_, i) => `evt_g${i % 50}`);
    const results = await Promise.all(keys.map((key) => intake.accept(event(key, new Date()))));
    expect(results.filter((r) => !r.duplicate)).toHaveLength(50);
    expect(results.every((r) => r.enqueued === !r.duplicate)).toBe(true);
    for (const result of results) {
      expect(await findInboxEvent(database.db, result.inboxId)).toBeDefined();
    }
    expect(enqueued.flat().sort((a, b) => a - b)).toEqual(
      results
        .filter((r) => !r.duplicate)
        .map((r) => r.inboxId)
        .sort((a, b) => a - b),
    );
    expect(enqueued.length).toBeLessThan(10);
  });

  it('group commit: a failed commit rejects the batch with InboxUnavailableError; a failed enqueue does not', async () => {
    const logger = createLogger({ level: 'silent', pretty: false });
    const failingQueue = createInboxIntake(database.db, {
      enqueue: () => Promise.reject(new Error('Redis is reconnecting')),
      logger,
    });
    expect(await failingQueue.accept(event('evt_q', new Date()))).toMatchObject({
      duplicate: false,
      enqueued: false,
    });
    await sql`drop table webhook_inbox`.execute(database.db);
    await expect(failingQueue.accept(event('evt_r', new Date()))).rejects.toBeInstanceOf(
      InboxUnavailableError,
    );
  });

  it('commits a batch whole or not at all, beside other requests (7.A1)', async () => {
    const intake = createInboxIntake(database.db, {
      enqueue: async () => undefined,
      logger: createLogger({ level: 'silent', pretty: false }),
    });
    const batch = Array.from({ length: 1200 }, (_, i) => event(`evt_big${i}`, new Date()));
    const [single, stored] = await Promise.all([
      intake.accept(event('evt_alone', new Date())),
      intake.acceptAll(batch),
    ]);
    expect(single.duplicate).toBe(false);
    expect(stored.filter((r) => !r.duplicate)).toHaveLength(1200);
    // One bad element (past the first statement's rows) rolls the whole batch back.
    const broken = Array.from({ length: 700 }, (_, i) => event(`evt_bad${i}`, new Date()));
    broken[650] = { ...broken[650]!, rawBody: null as unknown as Buffer };
    await expect(intake.acceptAll(broken)).rejects.toBeInstanceOf(InboxUnavailableError);
    const count = await database.db
      .selectFrom('webhook_inbox')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(1201);
  });

  it('marks status, counts attempts, and keeps processed_at only for final statuses', async () => {
    const { inboxId } = await insertInboxEvent(database.db, event('evt_c', new Date()));
    await markInboxStatus(database.db, inboxId, 'processing', { countAttempt: true });
    await markInboxStatus(database.db, inboxId, 'failed', {
      countAttempt: true,
      lastError: 'timeout',
    });
    expect(await findInboxEvent(database.db, inboxId)).toMatchObject({
      status: 'failed',
      attempts: 2,
      lastError: 'timeout',
      processedAt: null,
    });
    expect(await markInboxStatus(database.db, inboxId, 'unclassified', { at: new Date() })).toBe(
      true,
    );
    const final = await findInboxEvent(database.db, inboxId);
    expect(final).toMatchObject({ status: 'unclassified', lastError: null });
    expect(final!.processedAt).toMatch(/Z$/);
    expect(await markInboxStatus(database.db, 999_999, 'processed', { at: new Date() })).toBe(
      false,
    );
  });

  it('lists rows awaiting recovery: received or processing, older than the cut-off, oldest first', async () => {
    const t = (minute: number) => new Date(Date.UTC(2025, 0, 1, 12, minute));
    const ids: Record<string, number> = {};
    for (const [key, minute] of [
      ['old2', 2],
      ['old1', 1],
      ['busy', 3],
      ['done', 0],
      ['bad', 0],
      ['new', 30],
    ] as const) {
      ids[key] = (await insertInboxEvent(database.db, event(key, t(minute)))).inboxId;
    }
    await markInboxStatus(database.db, ids.busy!, 'processing');
    await markInboxStatus(database.db, ids.done!, 'processed', { at: new Date() });
    await markInboxStatus(database.db, ids.bad!, 'unclassified', { at: new Date() });
    const due = await inboxRowsAwaitingRecovery(database.db, { olderThan: t(10), limit: 10 });
    expect(due.map((row) => row.id)).toEqual([ids.old1, ids.old2, ids.busy]);
    expect(due[2]).toMatchObject({ status: 'processing', receivedAt: '2025-01-01T12:03:00.000Z' });
    expect(
      await inboxRowsAwaitingRecovery(database.db, { olderThan: t(10), limit: 1 }),
    ).toHaveLength(1);
  });
});
