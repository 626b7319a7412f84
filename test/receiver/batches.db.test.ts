import { afterEach, describe, expect, it } from 'vitest';
import { findInboxEvent } from '../../src/inbox/index.ts';
import { classifyEvent } from '../../src/ingest/index.ts';
import type { SyncBatchJobData } from '../../src/queues/index.ts';
import { testDialect } from '../support/test-database.ts';
import {
  signedEvent,
  startReceiverFixture,
  type ReceiverFixture,
} from './support/receiver-fixture.ts';

let fixture: ReceiverFixture | undefined;
afterEach(async () => {
  await fixture?.cleanup();
  fixture = undefined;
});

const transferEvent = (n: number, withId = true) =>
  `{ ${withId ? `"id": "evt_batch_${n}", ` : ''}"type": "transfer.updated", "data": { "object": { "id": "tr_batch${String(n).padStart(20, '0')}", "status": "successful", "reference": "ref-${n}" } } }`;

/** The sync batches the receiver enqueued (delayed by PAYSYNC_SYNC_BATCH_WAIT_MS or waiting). */
async function syncBatches(f: ReceiverFixture) {
  const jobs = await f.queues.sync.getJobs(['delayed', 'waiting']);
  expect(jobs.every((job) => job.name === 'sync-batch')).toBe(true);
  return jobs
    .map((job) => job.data as SyncBatchJobData)
    .sort((a, b) => (a.refs[0]!.inboxId ?? 0) - (b.refs[0]!.inboxId ?? 0));
}

async function rowsOf(f: ReceiverFixture, ids: readonly number[]) {
  return Promise.all(ids.map(async (id) => (await findInboxEvent(f.database.db, id))!));
}

/**
 * 7.A1: a batch is stored as one inbox row per event, each with its own dedupe key and its
 * own bytes, all in one commit; never one row that no worker can read.
 */
describe(`receiver: batches of events on ${testDialect()}`, () => {
  it('stores a two-event array as two rows, each with its bytes, id and resource, and one sync batch', async () => {
    fixture = await startReceiverFixture();
    const secret = fixture.config.webhookSecrets[0]!;
    const body = `[\n  ${transferEvent(1)} ,\n  ${transferEvent(2)}\n]\n`;
    const event = signedEvent(secret, { id: 'msg_twoevents', body });
    const answer = await fixture.post(event.body, event.headers);
    expect(answer).toMatchObject({
      status: 202,
      body: { received: true, duplicate: false, batch: true, events: 2, duplicates: 0 },
    });
    const ids = answer.body.inboxIds as number[];
    expect(new Set(ids).size).toBe(2);
    const rows = await rowsOf(fixture, ids);
    expect(rows.map((row) => row.rawBody.toString())).toEqual([transferEvent(1), transferEvent(2)]);
    expect(rows.map((row) => row.dedupeKey)).toEqual(['event:evt_batch_1', 'event:evt_batch_2']);
    expect(rows.map((row) => row.eventType)).toEqual(['transfer.updated', 'transfer.updated']);
    expect(rows[0]!.headers['webhook-id']).toBe('msg_twoevents');
    // What the worker will read: each row names its transfer.
    expect(rows.map((row) => classifyEvent(row.rawBody))).toMatchObject([
      { outcome: 'resource', kind: 'transfer', id: `tr_batch${'1'.padStart(20, '0')}` },
      { outcome: 'resource', kind: 'transfer', id: `tr_batch${'2'.padStart(20, '0')}` },
    ]);
    // Classified at intake: the rows carry their transfers, and one sync batch names both.
    expect(rows.map((row) => [row.resourceKind, row.resourceId])).toEqual([
      ['transfer', `tr_batch${'1'.padStart(20, '0')}`],
      ['transfer', `tr_batch${'2'.padStart(20, '0')}`],
    ]);
    expect(await fixture.queues.ingest.count()).toBe(0);
    const batches = await syncBatches(fixture);
    expect(batches).toHaveLength(1);
    expect(batches[0]!.refs.map((ref) => ref.inboxId)).toEqual(ids);

    // The sender's retry of the whole batch adds nothing.
    const retry = signedEvent(secret, {
      id: 'msg_twoevents',
      body,
      at: new Date(Date.now() + 1000),
    });
    const again = await fixture.post(retry.body, retry.headers);
    expect(again).toMatchObject({
      status: 200,
      body: { duplicate: true, events: 2, duplicates: 2, inboxIds: ids },
    });
    expect(await fixture.inboxCount()).toBe(2);
  });

  it('reads {"events":[…]} and {"data":[…]}; keys id-less elements by message id and position', async () => {
    fixture = await startReceiverFixture();
    const secret = fixture.config.webhookSecrets[0]!;
    const events = `{"events":[${transferEvent(3, false)},${transferEvent(4, false)}],"count":2}`;
    const first = signedEvent(secret, { id: 'msg_envelope', body: events });
    const answer = await fixture.post(first.body, first.headers);
    expect(answer).toMatchObject({ status: 202, body: { events: 2 } });
    const rows = await rowsOf(fixture, answer.body.inboxIds as number[]);
    expect(rows.map((row) => row.dedupeKey)).toEqual([
      'event:msg_envelope#0',
      'event:msg_envelope#1',
    ]);
    expect(rows[1]!.rawBody.toString()).toBe(transferEvent(4, false));

    const data = `{"data":[${transferEvent(5)},${transferEvent(6)}]}`;
    const second = signedEvent(secret, { id: 'msg_datalist', body: data });
    expect(await fixture.post(second.body, second.headers)).toMatchObject({
      status: 202,
      body: { events: 2 },
    });
    expect(await fixture.inboxCount()).toBe(4);
  });

  it('keeps {"data":{…}} and a list of non-objects as one event, as before', async () => {
    fixture = await startReceiverFixture();
    const secret = fixture.config.webhookSecrets[0]!;
    const single = signedEvent(secret, {
      id: 'msg_single',
      body: '{"type":"transfer.updated","data":{"id":"tr_singleevent00000000000"}}',
    });
    const answer = await fixture.post(single.body, single.headers);
    expect(answer).toMatchObject({ status: 202, body: { duplicate: false } });
    expect(answer.body).not.toHaveProperty('batch');
    const numbers = signedEvent(secret, { id: 'msg_numbers', body: '[1,2,3]' });
    expect((await fixture.post(numbers.body, numbers.headers)).body).not.toHaveProperty('batch');
    const empty = signedEvent(secret, { id: 'msg_empty', body: '{"events":[]}' });
    expect((await fixture.post(empty.body, empty.headers)).body).not.toHaveProperty('batch');
    expect(await fixture.inboxCount()).toBe(3);
  });

  it('stores a 1,000-event batch as 1,000 rows and refuses one over the cap before storing', async () => {
    fixture = await startReceiverFixture({
      env: { PAYSYNC_WEBHOOK_MAX_BYTES: String(1024 * 1024) },
    });
    const secret = fixture.config.webhookSecrets[0]!;
    const body = `[${Array.from({ length: 1000 }, (_, i) => transferEvent(1000 + i)).join(',')}]`;
    const event = signedEvent(secret, { id: 'msg_thousand', body });
    const answer = await fixture.post(event.body, event.headers);
    expect(answer).toMatchObject({ status: 202, body: { events: 1000, duplicates: 0 } });
    const ids = answer.body.inboxIds as number[];
    expect(new Set(ids).size).toBe(1000);
    expect(await fixture.inboxCount()).toBe(1000);
    const last = await findInboxEvent(fixture.database.db, ids[999]!);
    expect(last!.rawBody.toString()).toBe(transferEvent(1999));
    // 1,000 resources, PAYSYNC_SYNC_BATCH_SIZE (100) per job: ten jobs, not 1,000.
    const batches = await syncBatches(fixture);
    expect(batches.map((batch) => batch.refs.length)).toEqual(Array(10).fill(100));
    expect(new Set(batches.flatMap((batch) => batch.refs.map((ref) => ref.inboxId)))).toEqual(
      new Set(ids),
    );

    const tooMany = `[${Array.from({ length: 10_001 }, () => '{}').join(',')}]`;
    const over = signedEvent(secret, { id: 'msg_toomany', body: tooMany });
    expect(await fixture.post(over.body, over.headers)).toMatchObject({
      status: 413,
      body: {
        error: 'batch_too_large',
        message: expect.stringMatching(/10001 events; send at most 10000/),
      },
    });
    expect(await fixture.inboxCount()).toBe(1000);
  });

  it('applies the id-less rules to each element of an unsigned batch', async () => {
    fixture = await startReceiverFixture({ env: { PAYSYNC_WEBHOOK_SCHEME: 'none' } });
    const body = `[${transferEvent(7, false)},${transferEvent(8, false)},${transferEvent(7, false)}]`;
    const answer = await fixture.post(body);
    // The third element repeats the first while it awaits pick-up: one row for both.
    expect(answer).toMatchObject({ status: 202, body: { events: 3, duplicates: 1 } });
    const ids = answer.body.inboxIds as number[];
    expect(ids[2]).toBe(ids[0]);
    expect(await fixture.inboxCount()).toBe(2);
    // Rows keyed by their bytes go through the ingest job, not a batch (classify-at-intake.ts).
    expect(await fixture.queues.ingest.count()).toBe(2);
    expect(await fixture.queues.sync.count()).toBe(0);
  });
});
