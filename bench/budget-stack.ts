import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { sql } from 'kysely';
import { takeBalanceSnapshot } from '../src/balances/index.ts';
import { createDatabase } from '../src/db/index.ts';
import { freePort } from '../src/lifecycle/index.ts';
import { createLogger } from '../src/logger.ts';
import { generateApiKey, generateMerchantId, generateWebhookSecret } from '../src/sim/index.ts';
import { createUpstreamClient } from '../src/upstream/index.ts';

/** Where a bench run keeps its books: a new SQLite file, or a new schema in PostgreSQL. */
export type BenchDialect = 'sqlite' | 'postgres';

/** One throttled simulator and one `paysync start` on a fresh database, as child processes. */
export interface BudgetStack {
  readonly simUrl: string;
  readonly daemonUrl: string;
  /** The daemon's Prometheus text: see {@link metricsUrlOf}. */
  readonly metricsUrl: string;
  readonly database: ReturnType<typeof createDatabase>;
  /** Books the simulator's start-up funding as opening balances, so an audit compares like with like. */
  snapshotBalances(): Promise<void>;
  /** `paysync audit --truth` against the simulator: clean or not, and its last line. */
  audit(): { clean: boolean; line: string; output: string };
  /** Stops both children and removes the database, the Redis keys and the temporary folder. */
  stop(): Promise<void>;
}

export interface BudgetStackOptions {
  readonly dialect: BenchDialect;
  /** The simulator's token bucket (`paysync sim --rps`). */
  readonly simRps: number;
  /** The daemon's budget (`PAYSYNC_UPSTREAM_RPS`). */
  readonly budgetRps: number;
  /** The simulator's seed: the same seed sends the same ids and outcomes. */
  readonly seed: number;
}

/** The daemon's metrics endpoint: `paysync start` answers /metrics on its ops port. */
export function metricsUrlOf(opsPort: number): string {
  return `http://127.0.0.1:${opsPort}/metrics`;
}

const postgresBaseUrl =
  process.env.PAYSYNC_BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

function waitFor(child: ChildProcess, pattern: RegExp, what: string): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const match = pattern.exec(out);
      if (match) {
        child.stdout?.off('data', onData);
        child.stdout?.resume();
        resolve(match);
      }
    };
    child.stdout?.on('data', onData);
    child.on('exit', (code) =>
      reject(new Error(`${what} exited with ${code}: ${out.slice(-500)}`)),
    );
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.on('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** A fresh schema in the PostgreSQL database, and how to drop it again. */
async function freshSchema(): Promise<{ url: string; drop: () => Promise<void> }> {
  const schema = `bench_budget_${randomBytes(4).toString('hex')}`;
  const admin = createDatabase(postgresBaseUrl, { poolSize: 1 });
  await sql`create schema ${sql.id(schema)}`.execute(admin.db);
  const url = new URL(postgresBaseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    drop: async () => {
      await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(admin.db);
      await admin.close();
    },
  };
}

export async function startBudgetStack(options: BudgetStackOptions): Promise<BudgetStack> {
  const dir = mkdtempSync(join(tmpdir(), 'paysync-budget-'));
  const prefix = `paysync-budget-${randomBytes(4).toString('hex')}`;
  const redisUrl = process.env.PAYSYNC_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const schema = options.dialect === 'postgres' ? await freshSchema() : undefined;
  const databaseUrl = schema?.url ?? `sqlite:${join(dir, 'paysync.db')}`;
  const apiKey = generateApiKey();
  const merchantId = generateMerchantId();
  const simPort = await freePort();
  const simUrl = `http://127.0.0.1:${simPort}`;
  const opsPort = await freePort();
  const env = {
    ...process.env,
    PAYSYNC_DATABASE_URL: databaseUrl,
    PAYSYNC_REDIS_URL: redisUrl,
    PAYSYNC_QUEUE_PREFIX: prefix,
    PAYSYNC_WEBHOOK_SECRET: generateWebhookSecret(),
    PAYSYNC_API_KEY: apiKey,
    PAYSYNC_MERCHANT_ID: merchantId,
    PAYSYNC_UPSTREAM_URL: simUrl,
    PAYSYNC_PORT: String(await freePort()),
    PAYSYNC_OPS_PORT: String(opsPort),
    PAYSYNC_RECEIPTS_DIR: join(dir, 'receipts'),
    PAYSYNC_UPSTREAM_RPS: String(options.budgetRps),
    PAYSYNC_LOG_LEVEL: process.env.PAYSYNC_LOG_LEVEL ?? 'info',
  };
  const migrated = spawnSync(process.execPath, ['bin/paysync.js', 'migrate'], {
    env,
    encoding: 'utf8',
  });
  if (migrated.status !== 0) throw new Error(`migrate failed: ${migrated.stderr}`);

  const sim = spawn(
    process.execPath,
    [
      'bin/paysync.js',
      'sim',
      '--port',
      String(simPort),
      '--seed',
      String(options.seed),
      '--rps',
      String(options.simRps),
    ],
    { env: { ...env, PAYSYNC_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const daemon = spawn(process.execPath, ['bin/paysync.js', 'start'], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // The daemon's log lines, kept for a look afterwards (PAYSYNC_LOG_LEVEL=debug shows each
  // window read's plan and outcome).
  const daemonLog = process.env.PAYSYNC_BENCH_DAEMON_LOG;
  if (daemonLog) daemon.stdout?.pipe(createWriteStream(daemonLog, { flags: 'a' }));
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  const database = createDatabase(databaseUrl);
  const stop = async () => {
    await Promise.all([stopChild(daemon), stopChild(sim)]);
    await database.close().catch(() => undefined);
    const keys = await redis.keys(`${prefix}:*`).catch(() => [] as string[]);
    for (let i = 0; i < keys.length; i += 1000) await redis.del(...keys.slice(i, i + 1000));
    redis.disconnect();
    await schema?.drop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitFor(sim, /listening on (http:\/\/\S+)/, 'paysync sim');
    const daemonUrl = (await waitFor(daemon, /"url":"(http:\/\/[^"]+)"/, 'paysync start'))[1]!;
    // The bench's own calls (registering the webhook, one balance read) go to the same
    // throttled simulator, before the measured work starts.
    const client = createUpstreamClient({
      baseUrl: simUrl,
      apiKey,
      merchantId,
      rps: Math.max(1, options.simRps),
      now: () => new Date(),
    });
    await client.createWebhook({ url: `${daemonUrl}/webhooks` });
    return {
      simUrl,
      daemonUrl,
      metricsUrl: metricsUrlOf(opsPort),
      database,
      snapshotBalances: async () => {
        await takeBalanceSnapshot({
          db: database.db,
          upstream: client,
          logger: createLogger({ level: 'silent' }),
          environment: 'sandbox',
          now: () => new Date(),
        });
      },
      audit: () => {
        const run = spawnSync(
          process.execPath,
          ['bin/paysync.js', 'audit', '--truth', `${simUrl}/__sim/ground-truth`],
          { env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
        );
        const output = `${run.stdout}${run.stderr}`.trim();
        return { clean: run.status === 0, line: output.split('\n').at(-1) ?? '', output };
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
