import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueSync } from '../../src/queues/index.ts';
import { receiptFilePath, receiptsFor } from '../../src/receipts/index.ts';
import { upstreamRequestsTotal } from '../../src/upstream/index.ts';
import { startPrivateRedis, type PrivateRedis } from '../support/private-redis.ts';
import { testDialect } from '../support/test-database.ts';
import { createDaemonFixture, type DaemonFixture } from '../processing/support/daemon-fixture.ts';
import { until } from '../support/until.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A redis-server on a given port (the private one's, after it was stopped), empty. */
async function redisServerOn(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const probe = new Redis(`redis://127.0.0.1:${port}`, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    retryStrategy: () => 100,
  });
  probe.on('error', () => undefined);
  await until(
    async () => {
      try {
        if (probe.status === 'wait') await probe.connect();
        return (await probe.ping()) === 'PONG' ? true : undefined;
      } catch {
        return undefined;
      }
    },
    { message: 'the restarted Redis' },
  );
  probe.disconnect();
  return child;
}

async function receiptFetches(): Promise<number> {
  const metric = await upstreamRequestsTotal.get();
  return metric.values
    .filter((v) => v.labels.operation === 'getReceiptHtml' && v.labels.outcome === 'ok')
    .reduce((sum, v) => sum + v.value, 0);
}

/**
 * Acceptance 1 of the follow-ups issue: Redis goes away right after the ledger commit of a
 * failing transfer (the outbox dispatcher is held until then, so no follow-up left before),
 * then comes back empty. The transfer_failed alert reaches the follow-up consumer exactly
 * once, and the receipt is fetched exactly once. Before the outbox, the follow-ups were
 * enqueued after the commit and lost ("it is lost") when Redis refused.
 */
describe(`follow-ups survive a Redis outage after the commit, on ${testDialect()}`, () => {
  let redis: PrivateRedis;
  let restarted: ChildProcess | undefined;
  let fixture: DaemonFixture;
  let receiptsDir: string;
  let transferId: string;
  let fetchesBefore = 0;
  let duringOutage: { dispatched: number; consumed: number; attempts: number } | undefined;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    receiptsDir = mkdtempSync(join(tmpdir(), 'paysync-outage-receipts-'));
    fixture = await createDaemonFixture({
      redisUrl: redis.url,
      env: { PAYSYNC_LOG_LEVEL: 'info', PAYSYNC_RECEIPTS_DIR: receiptsDir },
    });
    const daemon = await fixture.startDaemon(['workers']);
    const db = fixture.database.db;
    fetchesBefore = await receiptFetches();

    daemon.outbox!.pause();
    const transfer = fixture.sim.control.createTransfer({
      amount: 12_500,
      destination: { number: '+221770009901' },
    });
    fixture.sim.control.settle(transfer.id, 'failed');
    transferId = transfer.id;
    await enqueueSync(daemon.queues, { kind: 'transfer', id: transferId, via: 'poll' });
    // The ledger commit: the transfer is failed in the mirror, its follow-ups in the outbox.
    await until(
      async () => {
        const row = await db
          .selectFrom('transfers')
          .select('status')
          .where('id', '=', transferId)
          .executeTakeFirst();
        const outbox = await db.selectFrom('outbox').select('id').execute();
        return row?.status === 'failed' && outbox.length === 2 ? true : undefined;
      },
      { message: 'the ledger commit' },
    );
    await redis.stop();
    daemon.outbox!.resume();
    // Until a hand-out timed out (5 s) and was counted on every row.
    const rows = await until(() => db.selectFrom('outbox').selectAll().execute(), {
      accept: (all) => all.length === 2 && all.every((r) => Number(r.dispatch_attempts) >= 1),
      message: 'a timed-out hand-out counted on both follow-ups',
    });
    duringOutage = {
      dispatched: rows.filter((r) => r.dispatched_at !== null).length,
      consumed: rows.filter((r) => r.consumed_at !== null).length,
      attempts: Math.min(...rows.map((r) => Number(r.dispatch_attempts))),
    };

    restarted = await redisServerOn(Number(new URL(redis.url).port));
    await until(
      async () => {
        const open = await db
          .selectFrom('outbox')
          .select('id')
          .where('consumed_at', 'is', null)
          .execute();
        return open.length === 0 ? true : undefined;
      },
      { message: 'both follow-ups consumed', timeoutMs: 60_000 },
    );
    // Room for a second delivery to show up, if the design allowed one.
    await sleep(3_000);
  }, 150_000);

  afterAll(async () => {
    await fixture?.cleanup();
    if (restarted && restarted.exitCode === null) {
      const exited = new Promise((resolve) => restarted!.once('exit', resolve));
      restarted.kill('SIGTERM');
      await exited;
    }
    rmSync(receiptsDir, { recursive: true, force: true });
  });

  it('kept the follow-ups in the outbox while Redis was away', () => {
    expect(duringOutage).toMatchObject({ dispatched: 0, consumed: 0 });
    expect(duringOutage!.attempts).toBeGreaterThanOrEqual(1);
  });

  it('delivered the transfer_failed alert to the follow-up consumer exactly once', () => {
    const lines = fixture.logs.filter((line) =>
      line.includes(`"msg":"alert: Transfer ${transferId} of `),
    );
    expect(lines).toHaveLength(1);
  });

  it('fetched and archived the receipt exactly once', async () => {
    expect((await receiptFetches()) - fetchesBefore).toBe(1);
    const stored = await receiptsFor(fixture.database.db, 'transfer', transferId);
    expect(stored).toHaveLength(1);
    const html = readFileSync(receiptFilePath(receiptsDir, stored[0]!.sha256));
    expect(createHash('sha256').update(html).digest('hex')).toBe(stored[0]!.sha256);
  });

  it('never logs a lost follow-up', () => {
    expect(fixture.logs.join('\n')).not.toContain('it is lost');
  });
});

/**
 * The same with Redis refusing writes instead of gone (`maxmemory` exhausted under
 * `noeviction`, as a full Redis answers): the refusal starts while the sync job is fetching,
 * so the ledger commit lands while Redis refuses, with no help from the test's timing. The
 * old post-commit enqueue logged "it is lost" here and the alert never came.
 */
describe(`follow-ups survive a Redis refusing writes at the commit, on ${testDialect()}`, () => {
  let redis: PrivateRedis;
  let fixture: DaemonFixture;
  let receiptsDir: string;
  let transferId: string;
  let fetchesBefore = 0;
  let whileRefusing: { failed: boolean; consumed: number } | undefined;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    receiptsDir = mkdtempSync(join(tmpdir(), 'paysync-oom-receipts-'));
    fixture = await createDaemonFixture({
      redisUrl: redis.url,
      env: { PAYSYNC_LOG_LEVEL: 'info', PAYSYNC_RECEIPTS_DIR: receiptsDir },
    });
    const daemon = await fixture.startDaemon(['workers']);
    const db = fixture.database.db;
    fetchesBefore = await receiptFetches();
    const transfer = fixture.sim.control.createTransfer({
      amount: 12_500,
      destination: { number: '+221770009901' },
    });
    fixture.sim.control.settle(transfer.id, 'failed');
    transferId = transfer.id;
    // Every fetch takes 2 s: time to make Redis refuse while the sync job is in flight.
    fixture.sim.control.setFaults({ latencyMs: 2_000 });
    await enqueueSync(daemon.queues, { kind: 'transfer', id: transferId, via: 'poll' });
    await until(async () => ((await daemon.queues.sync.getActiveCount()) > 0 ? true : undefined), {
      message: 'the sync job to start',
    });
    await redis.client.config('SET', 'maxmemory', '1');
    const status = async () =>
      (
        await db
          .selectFrom('transfers')
          .select('status')
          .where('id', '=', transferId)
          .executeTakeFirst()
      )?.status;
    await until(async () => ((await status()) === 'failed' ? true : undefined), {
      message: 'the ledger commit',
    });
    await sleep(4_000);
    const consumed = await db
      .selectFrom('outbox')
      .select('id')
      .where('consumed_at', 'is not', null)
      .execute();
    whileRefusing = { failed: (await status()) === 'failed', consumed: consumed.length };
    fixture.sim.control.setFaults({ latencyMs: 0 });
    await redis.client.config('SET', 'maxmemory', '0');
    await until(
      async () => {
        const alerted = fixture.logs.some((line) =>
          line.includes(`"msg":"alert: Transfer ${transferId} of `),
        );
        const receipts = await receiptsFor(db, 'transfer', transferId);
        return alerted && receipts.length > 0 ? true : undefined;
      },
      { message: 'the alert and the receipt', timeoutMs: 45_000 },
    ).catch(() => undefined);
    await sleep(3_000);
  }, 150_000);

  afterAll(async () => {
    await fixture?.cleanup();
    await redis?.stop();
    rmSync(receiptsDir, { recursive: true, force: true });
  });

  it('committed the ledger change while Redis refused, and handed out nothing', () => {
    expect(whileRefusing).toEqual({ failed: true, consumed: 0 });
  });

  it('delivered the transfer_failed alert exactly once and fetched the receipt exactly once', async () => {
    const lines = fixture.logs.filter((line) =>
      line.includes(`"msg":"alert: Transfer ${transferId} of `),
    );
    expect(lines).toHaveLength(1);
    expect((await receiptFetches()) - fetchesBefore).toBe(1);
    expect(await receiptsFor(fixture.database.db, 'transfer', transferId)).toHaveLength(1);
    expect(fixture.logs.join('\n')).not.toContain('it is lost');
  });
});
