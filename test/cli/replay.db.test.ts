import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueueName, ingestJobId } from '../../src/queues/index.ts';
import { createDaemonFixture, type DaemonFixture } from '../processing/support/daemon-fixture.ts';
import { runCli } from '../support/run-cli.ts';
import { runCliInProcess } from '../support/run-cli-in-process.ts';
import { TEST_REDIS_URL } from '../support/test-redis.ts';
import { fillLedger, type FilledLedger } from './support/filled-ledger.ts';
import { until } from '../support/until.ts';

let fixture: DaemonFixture;
let filled: FilledLedger;
let redis: Redis;
let ingest: Queue;

beforeAll(async () => {
  fixture = await createDaemonFixture();
  filled = await fillLedger(fixture.database.db, fixture.sim);
  redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
  ingest = new Queue(QueueName.ingest, { connection: redis, prefix: fixture.prefix });
});
afterAll(async () => {
  await ingest?.close();
  await redis?.quit();
  await fixture?.cleanup();
});

async function inboxStatuses(): Promise<string[]> {
  const rows = await fixture.database.db
    .selectFrom('webhook_inbox')
    .select(['id', 'status'])
    .orderBy('id')
    .execute();
  return rows.map((row) => row.status);
}

async function ledgerCounts(): Promise<{ journals: number; lines: number; history: number }> {
  const { db } = fixture.database;
  const count = async (table: 'journals' | 'journal_lines' | 'status_history') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirst()
      )?.n,
    );
  return {
    journals: await count('journals'),
    lines: await count('journal_lines'),
    history: await count('status_history'),
  };
}

async function waitForInbox(status: string): Promise<void> {
  await until(inboxStatuses, {
    accept: (statuses) => statuses.every((s) => s === status),
    message: `every inbox row ${status}`,
  });
}

// The first command runs as a real process, to prove the boundary; the other checks of output
// and exit codes run the same program in this process (runCliInProcess, issue 39).
describe('paysync replay', () => {
  it('--since queues every event received since into the ingest queue, and a second run adds nothing', async () => {
    const [first, second] = filled.failedTransferInboxIds;
    expect(await inboxStatuses()).toEqual(['processed', 'processed']);

    const result = await runCli(['replay', '--since', '1h'], { env: fixture.env });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^replay: queued 2 of 2 events received since \S+Z;/);
    for (const id of [first!, second!]) {
      expect(await (await ingest.getJob(ingestJobId(id)))?.getState()).toBe('waiting');
    }
    // Reopened, so the ingest job does not skip them as already done.
    expect(await inboxStatuses()).toEqual(['received', 'received']);

    const again = await runCliInProcess(['replay', '--since', '1h'], { env: fixture.env });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('queued 0 of 2');
    expect(again.stdout).toContain('2 already waiting in the queue');
    expect(await ingest.getWaitingCount()).toBe(2);
  });

  it('the workers run the replayed events and the ledger books nothing twice', async () => {
    const before = await ledgerCounts();
    await fixture.startDaemon(['workers']);
    await waitForInbox('processed');
    expect(await ledgerCounts()).toEqual(before);

    // One event by id, after the first replay finished: its job is re-added, run, and still a no-op.
    const id = filled.failedTransferInboxIds[1]!;
    const result = await runCliInProcess(['replay', String(id)], { env: fixture.env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`queued 1 of 1 (inbox event ${id})`);
    await waitForInbox('processed');
    expect(await ledgerCounts()).toEqual(before);
  });

  it('an unknown inbox id exits 1 in one line; no id and no --since, or both, exit 2', async () => {
    const unknown = await runCliInProcess(['replay', '999999'], { env: fixture.env });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr.trim().split('\n')).toHaveLength(1);
    expect(unknown.stderr).toContain('no inbox event with id 999999');

    const neither = await runCliInProcess(['replay'], { env: fixture.env });
    expect(neither.code).toBe(2);
    expect(neither.stderr).toContain('an inbox id (paysync replay 4211) or --since <time>');

    const both = await runCliInProcess(['replay', '1', '--since', '1h'], { env: fixture.env });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('not both');
  });
});
