/**
 * Issue 21, design point 2 (follow-up side): what N outbox rows cost from the dispatcher to
 * their consumption, in BullMQ jobs and in CPU. Seeds N `alert` rows in a fresh SQLite file,
 * then runs the real dispatcher (`dispatchOutbox`, passes of `--batch-size` rows) and a BullMQ
 * worker with the real follow-up processor (`jobs/follow-up.job.ts`, concurrency 2 as in the
 * daemon; without an alert runtime each alert is logged to a silent logger and stamped) until
 * every row is consumed. Prints rows/s, BullMQ jobs per row and this process's CPU per row.
 *
 * Usage: npx tsx bench/follow-ups.ts [--rows 5000] [--batch-size 100]
 * Runs on the tree it is in, so the same file run on an older checkout gives the before figure.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { followUpJob } from '../jobs/follow-up.job.ts';
import type { JobContext } from '../jobs/job-context.ts';
import { createDatabase, migrateToLatest } from '../src/db/index.ts';
import { createLogger } from '../src/logger.ts';
import { dispatchOutbox } from '../src/outbox/index.ts';
import { createQueues, QueueName } from '../src/queues/index.ts';
import { benchCli } from './bench-cli.ts';

benchCli(import.meta.filename);
const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '5000' },
    'batch-size': { type: 'string', default: '100' },
    'redis-url': { type: 'string', default: 'redis://127.0.0.1:6379' },
  },
});
const rows = Number(values.rows);
const batchSize = Number(values['batch-size']);
if (!Number.isInteger(rows) || rows < 1 || !Number.isInteger(batchSize) || batchSize < 1) {
  console.error('--rows and --batch-size must be whole numbers of at least 1');
  process.exit(2);
}

const dir = mkdtempSync(join(tmpdir(), 'paysync-bench-follow-ups-'));
const database = createDatabase(`sqlite:${join(dir, 'bench.db')}`);
const prefix = `paysync-bench-follow-ups-${process.pid}`;
const producer = new Redis(values['redis-url'], { maxRetriesPerRequest: null });
const consumer = new Redis(values['redis-url'], { maxRetriesPerRequest: null });
const queues = createQueues({ connection: producer, prefix });
const logger = createLogger({ level: 'silent', pretty: false });
const now = () => new Date();
let worker: Worker | undefined;

try {
  await migrateToLatest(database.db);
  const createdAt = now().toISOString();
  for (let start = 0; start < rows; start += 500) {
    const chunk = Array.from({ length: Math.min(500, rows - start) }, (_, n) => ({
      kind: 'alert',
      dedupe_key: `alert:bench:${start + n}`,
      payload: JSON.stringify({
        reason: 'transfer_failed',
        kind: 'transfer',
        id: `tr_bench${start + n}`,
        status: 'failed',
      }),
      created_at: createdAt,
      available_at: createdAt,
      dispatched_at: null,
      consumed_at: null,
      last_error: null,
    }));
    await database.db.insertInto('outbox').values(chunk).execute();
  }
  // Only what the follow-up processor reads for an alert without a runtime.
  const context = { db: database.db, queues, logger, now } as unknown as JobContext;
  const process_ = followUpJob(context);
  let jobs = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  worker = new Worker(
    QueueName.followUp,
    async (job) => {
      jobs += 1;
      return process_(job);
    },
    { connection: consumer, prefix, concurrency: 2 },
  );
  for (;;) {
    const pass = await dispatchOutbox({ db: database.db, queues, now, batchSize });
    if (!pass.more) break;
  }
  for (;;) {
    const open = await database.db
      .selectFrom('outbox')
      .select((eb) => eb.fn.countAll<number>().as('open'))
      .where('consumed_at', 'is', null)
      .executeTakeFirstOrThrow();
    if (Number(open.open) === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  console.log(
    JSON.stringify({
      rows,
      batchSize,
      seconds: Number(seconds.toFixed(2)),
      rowsPerSecond: Math.round(rows / seconds),
      bullmqJobs: jobs,
      jobsPerRow: Number((jobs / rows).toFixed(3)),
      cpuMsPerRow: Number(((cpu.user + cpu.system) / 1000 / rows).toFixed(3)),
      loadAverage: loadavg().map((value) => Number(value.toFixed(2))),
    }),
  );
} finally {
  await worker?.close();
  await queues.followUp.obliterate({ force: true }).catch(() => undefined);
  await queues.close();
  producer.disconnect();
  consumer.disconnect();
  await database.close();
  rmSync(dir, { recursive: true, force: true });
}
