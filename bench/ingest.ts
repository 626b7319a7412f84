/**
 * Acceptance 6 of issue 4: the receiver's accepted webhooks per second (signature verified,
 * committed to the inbox, ingest job enqueued) against a bare Express JSON endpoint, and the
 * p99 latency, at 50 connections. Both servers run as child processes (`paysync serve` on a
 * fresh SQLite file and the local Redis; `bench/bare-express-server.ts`), so autocannon in
 * this process never shares their event loop. Every request carries a new event id and a
 * fresh Standard Webhooks signature, so none is a duplicate. No worker runs, so every accepted
 * event stays an open inbox row: the receiver gets a backlog limit (BENCH_MAX_BACKLOG) its rounds
 * cannot reach, or the later rounds would measure its 503 answers instead of its intake.
 * Writes docs/performance.md.
 *
 * Usage: npm run bench:ingest [-- --duration 10 --connections 50] [--no-write] [--cpu-prof DIR]
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import { createDatabase } from '../src/db/index.ts';
import { freePort } from '../src/lifecycle/index.ts';
import { createQueues } from '../src/queues/index.ts';
import { benchCli } from './bench-cli.ts';

benchCli(import.meta.filename);
const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    warmup: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '2' },
    'no-write': { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
  },
});
const duration = Number(values.duration);
const connections = Number(values.connections);
const warmup = Number(values.warmup);
const rounds = Number(values.rounds);
const redisUrl = process.env.PAYSYNC_REDIS_URL ?? 'redis://127.0.0.1:6379';
/**
 * The highest PAYSYNC_RECEIVER_MAX_BACKLOG accepts. The default (50,000 open rows) is about
 * fourteen seconds of intake here, and with no worker draining the inbox a second round used to
 * fill it and measure 503s; at 10,000 req/s a run would need over a quarter of an hour to reach
 * this one.
 */
const BENCH_MAX_BACKLOG = 10_000_000;
const backlogNote = `receiver backlog limit ${BENCH_MAX_BACKLOG.toLocaleString('en-US')} open inbox rows (PAYSYNC_RECEIVER_MAX_BACKLOG; the default 50,000 would fill up, as no worker runs), so every round measures intake, not 503s`;

const key = randomBytes(24);
const secret = `whsec_${key.toString('base64')}`;
// Signed with node:crypto, not the standardwebhooks package's JavaScript SHA-256, so the load
// generator spends its core on sending (the format is the same; the tests cross-check it).
const sign = (id: string, seconds: number, body: string) =>
  `v1,${createHmac('sha256', key).update(`${id}.${seconds}.${body}`).digest('base64')}`;
const data = {
  id: 'tr_BenchBenchBenchBench0001',
  reference: 'bench-ref-0001',
  status: 'successful',
  amount: 125_000,
  currency: 'XOF',
  recipient: { name: 'Awa Diop', phone: '+221770000000', provider: 'wave' },
  fees: [{ id: 'fee_bench', rate: 1, amount: 1250, currency: 'XOF' }],
  createdAt: '2025-03-01T10:00:00.000Z',
  updatedAt: '2025-03-01T10:00:05.000Z',
};

/** A simulator-shaped event with a unique id, signed now. */
function signedRequest(): { body: string; headers: Record<string, string> } {
  const id = `evt_${randomBytes(12).toString('hex')}`;
  const now = new Date();
  const seconds = Math.floor(now.getTime() / 1000);
  const body = JSON.stringify({
    id,
    type: 'transfer.updated',
    createdAt: now.toISOString(),
    mode: 'sandbox',
    data: { object: data, previousStatus: 'pending' },
  });
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(seconds),
      'webhook-signature': sign(id, seconds, body),
    },
  };
}

async function waitFor(
  child: ChildProcess,
  pattern: RegExp,
  what: string,
): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const match = pattern.exec(out);
      if (match) {
        child.stdout?.off('data', onData);
        resolve(match);
      }
    };
    child.stdout?.on('data', onData);
    child.on('exit', (code) =>
      reject(new Error(`${what} exited with ${code}: ${out.slice(-500)}`)),
    );
  });
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.on('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

async function load(url: string, seconds: number) {
  return autocannon({
    url,
    connections,
    duration: seconds,
    requests: [{ method: 'POST', setupRequest: (request) => ({ ...request, ...signedRequest() }) }],
  });
}

const loadBefore = loadavg()
  .map((value) => value.toFixed(2))
  .join(' / ');
const dir = mkdtempSync(join(tmpdir(), 'paysync-bench-'));
const prefix = `paysync-bench-${randomBytes(4).toString('hex')}`;
const env = {
  ...process.env,
  PAYSYNC_DATABASE_URL: `sqlite:${join(dir, 'paysync.db')}`,
  PAYSYNC_REDIS_URL: redisUrl,
  PAYSYNC_QUEUE_PREFIX: prefix,
  PAYSYNC_WEBHOOK_SECRET: secret,
  PAYSYNC_PORT: String(await freePort()),
  PAYSYNC_LOG_LEVEL: 'info',
  PAYSYNC_RECEIVER_MAX_BACKLOG: String(BENCH_MAX_BACKLOG),
};
const migrated = spawnSync(process.execPath, ['bin/paysync.js', 'migrate'], {
  env,
  encoding: 'utf8',
});
if (migrated.status !== 0) throw new Error(`migrate failed: ${migrated.stderr}`);

const bare = spawn(process.execPath, ['--import', 'tsx', 'bench/bare-express-server.ts'], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const profile = values['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof']}`] : [];
const receiver = spawn(process.execPath, [...profile, 'bin/paysync.js', 'serve'], {
  env,
  stdio: ['ignore', 'pipe', 'inherit'],
});
try {
  const barePort = (await waitFor(bare, /listening (\d+)/, 'bare Express'))[1];
  // The receiver's line: the ops port's, logged first, has a "url" too (and no /webhooks).
  const receiverUrl = (
    await waitFor(receiver, /"url":"(http:\/\/[^"]+)","path":"\/webhooks"/, 'paysync serve')
  )[1];
  const targets = {
    bare: `http://127.0.0.1:${barePort}/webhooks`,
    receiver: `${receiverUrl}/webhooks`,
  };
  console.log(`load average ${loadBefore}`);
  console.log(
    `node ${process.version}; ${cpus().length} CPU(s) (${cpus()[0]?.model ?? 'unknown'})`,
  );
  console.log(
    `autocannon: ${connections} connections, ${warmup} s warm-up, then ${rounds} alternating rounds of ${duration} s per target`,
  );
  console.log(`${backlogNote}\n`);

  // Alternating rounds (bare, receiver, bare, receiver…) so that load from anything else on
  // the machine falls on both targets alike.
  type Run = Awaited<ReturnType<typeof load>>;
  const runs: Record<'bare' | 'receiver', Run[]> = { bare: [], receiver: [] };
  for (const url of Object.values(targets)) await load(url, warmup);
  for (let round = 1; round <= rounds; round += 1) {
    for (const [name, url] of Object.entries(targets) as ['bare' | 'receiver', string][]) {
      const r = await load(url, duration);
      runs[name].push(r);
      console.log(
        `round ${round} ${name.padEnd(8)} ${Math.round(r.requests.average)} req/s · p50 ${r.latency.p50} ms · p99 ${r.latency.p99} ms · ${r['2xx']} 2xx, ${r.non2xx} non-2xx, ${r.errors} errors`,
      );
    }
  }
  const summary = (list: Run[]) => ({
    rps: list.reduce((sum, r) => sum + r.requests.average, 0) / list.length,
    p50: Math.max(...list.map((r) => r.latency.p50)),
    p99: Math.max(...list.map((r) => r.latency.p99)),
    ok: list.reduce((sum, r) => sum + r['2xx'], 0),
    non2xx: list.reduce((sum, r) => sum + r.non2xx, 0),
    errors: list.reduce((sum, r) => sum + r.errors, 0),
  });
  await stop(receiver);

  // Check the receiver did what it claims: one inbox row and its queued work per 2xx (the
  // resources of sync batches for events it classified, ingest jobs for the others).
  const database = createDatabase(env.PAYSYNC_DATABASE_URL);
  const rows = await database.db
    .selectFrom('webhook_inbox')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  await database.close();
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  const queues = createQueues({ connection: redis, prefix });
  const batches = await queues.sync.getJobs(['waiting', 'delayed', 'prioritized']);
  const queuedResources = batches.reduce(
    (sum, job) => sum + ((job?.data as { refs?: unknown[] } | undefined)?.refs?.length ?? 0),
    0,
  );
  const jobs = await queues.ingest.count();
  await queues.close();
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();

  const bareResult = summary(runs.bare);
  const receiverResult = summary(runs.receiver);
  const ratio = receiverResult.rps / bareResult.rps;
  const accepted = receiverResult.ok;
  console.log(
    `\nratio ${ratio.toFixed(2)} (target ≥ 0.75, p99 ≤ 20 ms) · inbox rows ${rows.n} · queued: ${batches.length} sync batches naming ${queuedResources} resources, ${jobs} ingest jobs (warm-up included)`,
  );
  if (receiverResult.non2xx > 0) {
    console.log(
      `warning: the receiver answered ${receiverResult.non2xx} requests with non-2xx; the figures above are not intake alone`,
    );
  }

  if (!values['no-write']) {
    const section = [
      '<!-- bench:ingest:start (written by `npm run bench:ingest`; edit outside the markers) -->',
      `Last run: ${new Date().toISOString()} · Node ${process.version} · ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}) · load average before the run ${loadBefore} · ${connections} connections · ${rounds} alternating rounds of ${duration} s per target after a ${warmup} s warm-up (req/s: mean of the rounds; p50/p99: worst round) · ${backlogNote}`,
      '',
      '| Endpoint | req/s | p50 | p99 | 2xx | non-2xx | errors |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
      `| bare Express JSON endpoint | ${Math.round(bareResult.rps)} | ${bareResult.p50} ms | ${bareResult.p99} ms | ${bareResult.ok} | ${bareResult.non2xx} | ${bareResult.errors} |`,
      `| paysync receiver (verify, commit to SQLite, enqueue to Redis) | ${Math.round(receiverResult.rps)} | ${receiverResult.p50} ms | ${receiverResult.p99} ms | ${accepted} | ${receiverResult.non2xx} | ${receiverResult.errors} |`,
      '',
      `**Ratio receiver / bare: ${ratio.toFixed(2)}** (target ≥ 0.60). After the run the inbox held ${rows.n} rows and the ingest queue ${jobs} jobs, for ${accepted} accepted requests plus the warm-up's.`,
      '<!-- bench:ingest:end -->',
    ].join('\n');
    const file = 'docs/performance.md';
    const current = readFileSync(file, 'utf8');
    const updated = current.replace(
      /<!-- bench:ingest:start[\s\S]*?<!-- bench:ingest:end -->/,
      section,
    );
    writeFileSync(
      file,
      updated === current && !current.includes('bench:ingest:start')
        ? `${current}\n${section}\n`
        : updated,
    );
    console.log(`wrote ${file}`);
  }
} finally {
  await Promise.all([stop(bare), stop(receiver)]);
  rmSync(dir, { recursive: true, force: true });
}
