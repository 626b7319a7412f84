import { cpuSeconds } from './process-cpu.ts';
import { startSimChild } from './sim-child.ts';
/**
 * The simulator alone (issue 21, design point 6). `paysync sim` runs as a child process, so its
 * CPU is its own (read from /proc), and this process plays everybody else.
 *
 * Part 1, the pipeline's workload: N transfers + N payment intents seeded already settled
 * through the control surface (`POST /__sim/seed`, as bench:pipeline does), 3 webhooks each
 * (created, pending, successful) delivered to a bare local receiver (a plain node:http server
 * answering 200), and each item fetched once as the daemon does (an intent by id, a transfer by
 * its reference), when its last webhook arrives. Reports the simulator's CPU ms per settled item
 * and items/s (seed call to the last webhook and fetch).
 *
 * Part 2, request rate on simple GETs, measured with autocannon.
 *
 * Part `memory` (only when asked for): items created at a steady rate (half transfers, half
 * payment intents, seeded unsettled so they walk their states on the simulator clock), their
 * webhooks received and each fetched once as above (plain fetch calls, no response validation,
 * so the bench keeps up on a loaded machine), for `--minutes`. The simulator's RSS (from
 * /proc) and what it holds in memory (`GET /__sim/memory`) are sampled every `--sample-seconds`;
 * the run reports RSS after warm-up and at the end, the slope after warm-up and a projection to a
 * 30-minute soak, and appends a row to docs/performance.md (unless `--no-write`).
 *
 * Usage: npm run bench:sim [-- --items 1000 | --short] [--part all|workload|requests|memory]
 *          [--fetch-concurrency 8] [--cpu-prof DIR]
 *          [--duration 10 --connections 50 --seed 10000]
 *          [--minutes 2 --rate 200 --sample-seconds 10 --settled-in-memory 30|never]
 *
 * `--settled-in-memory` is passed to `paysync sim` in every part (default: the simulator's own,
 * except 30 s in the memory part).
 *          [--no-write --label TEXT]
 *
 * `--short` is 200 + 200 items and 2 s per GET target over 1,000 seeded items. `--cpu-prof DIR`
 * writes a V8 CPU profile of the simulator into DIR (read it with bench/profile-top.ts).
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pLimit from 'p-limit';
import { createUpstreamClient } from '../src/upstream/index.ts';
import { appendPerformanceRow } from './performance-doc.ts';
import { benchCli } from './bench-cli.ts';

benchCli(import.meta.filename);
const { values } = parseArgs({
  options: {
    items: { type: 'string' },
    short: { type: 'boolean', default: process.env.PAYSYNC_BENCH_SHORT === '1' },
    part: { type: 'string', default: 'all' },
    'fetch-concurrency': { type: 'string', default: '8' },
    'cpu-prof': { type: 'string' },
    'timeout-seconds': { type: 'string', default: '300' },
    duration: { type: 'string' },
    connections: { type: 'string', default: '50' },
    seed: { type: 'string' },
    minutes: { type: 'string', default: '2' },
    rate: { type: 'string', default: '200' },
    'sample-seconds': { type: 'string', default: '10' },
    'settled-in-memory': { type: 'string' },
    'no-write': { type: 'boolean', default: false },
    label: { type: 'string', default: '' },
  },
});
const short = values.short;
const perKind = Number(values.items ?? (short ? 200 : 1000));
const duration = Number(values.duration ?? (short ? 2 : 10));
const connections = Number(values.connections);
const seedCount = Number(values.seed ?? (short ? 1000 : 10000));
const fetchConcurrency = Number(values['fetch-concurrency']);
const timeoutMs = Number(values['timeout-seconds']) * 1000;
const part = values.part;
if (part !== 'all' && part !== 'workload' && part !== 'requests' && part !== 'memory') {
  console.error('--part must be all, workload, requests or memory');
  process.exit(2);
}
const memoryRun = {
  minutes: Number(values.minutes),
  rate: Number(values.rate),
  sampleSeconds: Number(values['sample-seconds']),
  settledInMemory: values['settled-in-memory'] ?? (part === 'memory' ? '30' : 'default'),
};
if (
  memoryRun.settledInMemory !== 'never' &&
  memoryRun.settledInMemory !== 'default' &&
  !/^\d+$/.test(memoryRun.settledInMemory)
) {
  console.error('--settled-in-memory must be a whole number of seconds, or never');
  process.exit(2);
}
for (const [name, value] of [
  ['--items', perKind],
  ['--duration', duration],
  ['--connections', connections],
  ['--seed', seedCount],
  ['--fetch-concurrency', fetchConcurrency],
  ['--minutes', memoryRun.minutes],
  ['--rate', memoryRun.rate],
  ['--sample-seconds', memoryRun.sampleSeconds],
] as const) {
  if (!Number.isInteger(value) || value < 1) {
    console.error(`${name} must be a whole number of at least 1`);
    process.exit(2);
  }
}

const credentials = { ApiKey: 'sk_bench_key', MerchantId: 'mch_bench', Environment: 'sandbox' };
const profileArgs = values['cpu-prof']
  ? ['--cpu-prof', `--cpu-prof-dir=${values['cpu-prof']}`]
  : [];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function post(url: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as Record<string, unknown>;
}

const TERMINAL = new Set(['successful', 'failed', 'canceled']);

interface WorkloadFigures {
  items: number;
  webhooks: number;
  fetches: number;
  seconds: number;
  simCpuSeconds: number;
}

/**
 * The pipeline's workload against the simulator alone. The receiver reads each body, answers
 * 200 with no body, and when an item's webhook shows a final status, fetches it once.
 */
/** The bench's client of the simulator API (the daemon's own client, unthrottled). */
function benchClient(simUrl: string) {
  return createUpstreamClient({
    baseUrl: simUrl,
    apiKey: credentials.ApiKey,
    merchantId: credentials.MerchantId,
    rps: 1_000_000,
    concurrency: fetchConcurrency,
    validateRequests: false,
    now: () => new Date(),
  });
}

/**
 * A bare receiver playing the daemon: reads each body, answers 200 with no body, and when an
 * item's webhook shows a final status, fetches it once (an intent by id, a transfer by its
 * reference).
 */
async function startFetchingReceiver(
  client: ReturnType<typeof createUpstreamClient>,
  simUrl?: string,
) {
  // Given the simulator's URL, fetches are plain `fetch` calls without the client's response
  // validation: the memory part measures the simulator, and a bench process that falls behind
  // on a loaded machine makes the simulator hold its webhooks longer (retries, backlog).
  const plain = simUrl === undefined ? undefined : pLimit(fetchConcurrency);
  const plainGet = async (path: string, check: (body: string) => boolean) => {
    const response = await fetch(`${simUrl}${path}`, { headers: credentials });
    const body = await response.text();
    if (!response.ok || !check(body)) throw new Error(`GET ${path}: ${response.status}`);
  };
  const counts = { webhooks: 0, fetches: 0, failures: 0, lastDoneAt: 0 };
  const fetched = new Set<string>();
  const inFlight = new Set<Promise<void>>();
  const fetchOnce = (object: { id: string; reference?: string }, kind: string) => {
    if (fetched.has(object.id)) return;
    fetched.add(object.id);
    const done = (async () => {
      try {
        if (plain) {
          const now = Date.now();
          const path =
            kind === 'payment_intent'
              ? `/terminal/payments/${object.id}`
              : `/transfers?reference=${encodeURIComponent(object.reference ?? '')}&from=${new Date(now - 30 * 24 * 3_600_000).toISOString()}&to=${new Date(now + 60_000).toISOString()}&perPage=100`;
          await plain(() => plainGet(path, (body) => body.includes(object.id)));
        } else if (kind === 'payment_intent') await client.getPaymentIntent(object.id);
        else {
          const now = Date.now();
          const listed = await client.listTransfers({
            reference: object.reference ?? '',
            from: new Date(now - 30 * 24 * 3_600_000),
            to: new Date(now + 60_000),
            perPage: 100,
          });
          if (!listed.some((transfer) => transfer.id === object.id)) {
            throw new Error(`transfer ${object.id} not listed under its reference`);
          }
        }
        counts.fetches += 1;
        counts.lastDoneAt = Date.now();
      } catch (error) {
        counts.failures += 1;
        console.error(`fetch ${object.id}: ${(error as Error).message}`);
      }
    })();
    inFlight.add(done);
    void done.finally(() => inFlight.delete(done));
  };
  const receiver = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      res.writeHead(200, { 'content-length': '0' }).end();
      counts.webhooks += 1;
      counts.lastDoneAt = Date.now();
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        type: string;
        data: { object: { id: string; status: string; reference?: string } };
      };
      const kind = event.type.slice(0, event.type.lastIndexOf('.'));
      if (TERMINAL.has(event.data.object.status)) fetchOnce(event.data.object, kind);
    });
  });
  receiver.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`,
    counts,
    inFlight,
    /** Forgets which ids were fetched (the memory run fetches each item once, then never again). */
    forget: (id: string) => fetched.delete(id),
    close: async () => {
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
    },
  };
}

/** The pipeline's workload against the simulator alone (see the file's comment). */
async function runWorkload(simUrl: string, simPid: number): Promise<WorkloadFigures> {
  const client = benchClient(simUrl);
  const receiver = await startFetchingReceiver(client);
  const { counts, inFlight } = receiver;
  const receiverUrl = receiver.url;
  try {
    await client.createWebhook({ url: receiverUrl });
    const expectedItems = perKind * 2;
    const expectedWebhooks = expectedItems * 3;
    const cpuBefore = cpuSeconds(simPid);
    const started = Date.now();
    for (const kind of ['transfer', 'payment_intent']) {
      await post(`${simUrl}/__sim/seed`, { kind, count: perKind, settle: true, failureRate: 0 });
    }
    let lastPrint = started;
    for (;;) {
      if (Date.now() - started > timeoutMs) {
        throw new Error(
          `no convergence within ${timeoutMs / 1000} s: ${counts.webhooks} webhooks, ${counts.fetches} fetches`,
        );
      }
      await sleep(50);
      if (Date.now() - lastPrint > 5000) {
        lastPrint = Date.now();
        console.log(
          `  ${((lastPrint - started) / 1000).toFixed(0)} s: ${counts.webhooks}/${expectedWebhooks} webhooks, ${counts.fetches}/${expectedItems} fetches`,
        );
      }
      if (
        counts.webhooks >= expectedWebhooks &&
        counts.fetches + counts.failures >= expectedItems &&
        inFlight.size === 0
      ) {
        break;
      }
    }
    const simCpuSeconds = cpuSeconds(simPid) - cpuBefore;
    const { idle } = (await post(`${simUrl}/__sim/webhooks/flush`, { timeoutMs: 1000 })) as {
      idle: boolean;
    };
    if (!idle) throw new Error('the simulator still owes webhooks after all were received');
    if (counts.failures > 0) throw new Error(`${counts.failures} fetches failed`);
    return {
      items: expectedItems,
      webhooks: counts.webhooks,
      fetches: counts.fetches,
      seconds: (counts.lastDoneAt - started) / 1000,
      simCpuSeconds,
    };
  } finally {
    await receiver.close();
  }
}

interface MemorySample {
  seconds: number;
  created: number;
  rssMb: number;
  heapMb: number;
  inMemory: number;
  moved: number;
}

/** Resident set size of a process now, in MB (VmRSS). */
function rssMb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

/** Least-squares slope of `y` over `x`. */
function slope(points: readonly { x: number; y: number }[]): number {
  const n = points.length;
  const meanX = points.reduce((sum, p) => sum + p.x, 0) / n;
  const meanY = points.reduce((sum, p) => sum + p.y, 0) / n;
  const num = points.reduce((sum, p) => sum + (p.x - meanX) * (p.y - meanY), 0);
  const den = points.reduce((sum, p) => sum + (p.x - meanX) ** 2, 0);
  return den === 0 ? 0 : num / den;
}

/** Items at a steady rate for `minutes`, the simulator's memory sampled (see the file's comment). */
async function runMemory(simUrl: string, simPid: number): Promise<MemorySample[]> {
  const client = benchClient(simUrl);
  const receiver = await startFetchingReceiver(client, simUrl);
  const samples: MemorySample[] = [];
  try {
    await client.createWebhook({ url: receiver.url });
    const started = Date.now();
    const endAt = started + memoryRun.minutes * 60_000;
    let created = 0;
    let nextSampleAt = started;
    while (Date.now() < endAt) {
      const due = Math.floor(((Date.now() - started) / 1000) * memoryRun.rate) - created;
      if (due >= 2) {
        const half = Math.floor(due / 2);
        const from = new Date(Date.now() - 1000).toISOString();
        for (const kind of ['transfer', 'payment_intent']) {
          await post(`${simUrl}/__sim/seed`, { kind, count: half, from });
        }
        created += half * 2;
      }
      if (Date.now() >= nextSampleAt) {
        nextSampleAt += memoryRun.sampleSeconds * 1000;
        const memory = (await (await fetch(`${simUrl}/__sim/memory`)).json()) as {
          items: { inMemory: number; moved: number };
          heapUsedBytes: number;
        };
        const sample = {
          seconds: Math.round((Date.now() - started) / 1000),
          created,
          rssMb: rssMb(simPid),
          heapMb: memory.heapUsedBytes / 2 ** 20,
          inMemory: memory.items.inMemory,
          moved: memory.items.moved,
        };
        samples.push(sample);
        console.log(
          `  ${sample.seconds} s: ${created} items created, ${receiver.counts.webhooks} webhooks, ${receiver.counts.fetches} fetches; ` +
            `sim RSS ${sample.rssMb.toFixed(0)} MB, heap ${sample.heapMb.toFixed(0)} MB, ` +
            `${sample.inMemory} items in memory, ${sample.moved} moved out`,
        );
      }
      await sleep(100);
    }
    // Fetches still in flight finish before the simulator stops.
    const drainUntil = Date.now() + 60_000;
    while (receiver.inFlight.size > 0 && Date.now() < drainUntil) await sleep(100);
    if (receiver.counts.failures > 0) throw new Error(`${receiver.counts.failures} fetches failed`);
    return samples;
  } finally {
    await receiver.close();
  }
}

function reportMemory(samples: readonly MemorySample[]): void {
  const settledSeconds =
    memoryRun.settledInMemory === 'never' ? Infinity : Number(memoryRun.settledInMemory);
  // Warm-up: an item is created, settles within ~10 s, then waits `settledInMemory` to move out.
  const warmUpSeconds = Math.min(settledSeconds + 30, (memoryRun.minutes * 60) / 2);
  const warm = samples.filter((sample) => sample.seconds >= warmUpSeconds);
  const first = warm[0];
  const last = samples.at(-1);
  if (!first || !last) throw new Error('too few samples: run longer or sample more often');
  const mbPerMinute = slope(warm.map((s) => ({ x: s.seconds / 60, y: s.rssMb })));
  const projected = last.rssMb + Math.max(0, mbPerMinute) * (30 - last.seconds / 60);
  const summary =
    `RSS ${first.rssMb.toFixed(0)} MB after warm-up (${first.seconds} s), ${last.rssMb.toFixed(0)} MB at the end; ` +
    `slope after warm-up ${mbPerMinute.toFixed(1)} MB/min; projected to a 30-minute soak: ${projected.toFixed(0)} MB`;
  console.log(summary);
  if (values['no-write']) return;
  const load = loadavg()
    .map((value) => value.toFixed(2))
    .join(' / ');
  const label = values.label ? ` (${values.label})` : '';
  const settled = memoryRun.settledInMemory === 'never' ? 'never' : `${settledSeconds} s`;
  const row = `| ${new Date().toISOString().slice(0, 16)}Z${label} | ${memoryRun.rate}/s × ${memoryRun.minutes} min | ${settled} | ${last.created} | ${first.rssMb.toFixed(0)} MB (${first.seconds} s) | ${last.rssMb.toFixed(0)} MB | ${mbPerMinute.toFixed(1)} MB/min | ${projected.toFixed(0)} MB | ${last.inMemory} / ${last.moved} | ${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}, Node ${process.version}, load ${load} |`;
  const file = appendPerformanceRow({
    marker: '<!-- bench:sim-memory:rows (appended by `npm run bench:sim -- --part memory`) -->',
    header: [
      '## Simulator memory (`npm run bench:sim -- --part memory`)',
      '',
      "Items created at a steady rate (half transfers, half payment intents), 3 webhooks each to a bare receiver, each fetched once; the simulator's RSS sampled from /proc. Warm-up is the time an item takes to settle and then to wait `--settled-in-memory` before it moves out (capped at half the run). The projection adds the slope after warm-up (when positive) up to 30 minutes. Newest last.",
      '',
      '| Run | Rate × length | Settled in memory | Items created | RSS after warm-up | RSS at end | RSS slope after warm-up | Projected RSS at 30 min | Items in memory / moved out at end | Machine |',
      '| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
    ],
    row,
  });
  console.log(`wrote ${file}`);
}

async function runRequests(simUrl: string): Promise<void> {
  await post(`${simUrl}/__sim/seed`, { kind: 'transfer', count: seedCount, settle: true });
  await post(`${simUrl}/__sim/seed`, { kind: 'payment_intent', count: seedCount, settle: true });
  const intent = await post(`${simUrl}/__sim/payment-intents`, { amount: 1_000 });
  const targets = [
    { name: 'GET /data/countries (no credentials)', path: '/data/countries', headers: {} },
    {
      name: 'GET /terminal/payments/{id} (credentialed, by id)',
      path: `/terminal/payments/${String(intent.id)}`,
      headers: credentials,
    },
    {
      name: `GET /transfers (first page of ${seedCount} in the window)`,
      path: '/transfers?from=2000-01-01T00:00:00.000Z',
      headers: credentials,
    },
  ];
  console.log(
    `\nautocannon: ${connections} connections, ${duration} s per target, ${seedCount} transfers + ${seedCount} intents seeded`,
  );
  for (const target of targets) {
    const result = await autocannon({
      url: `${simUrl}${target.path}`,
      connections,
      duration,
      headers: target.headers,
    });
    const ok = result.requests.total - result.non2xx;
    console.log(
      `${target.name}\n  ${Math.round(result.requests.average)} req/s · p50 ${result.latency.p50} ms · p99 ${result.latency.p99} ms · ` +
        `${ok} ok, ${result.non2xx} non-2xx, ${result.errors} errors`,
    );
  }
}

const load = loadavg()
  .map((value) => value.toFixed(2))
  .join(' / ');
const sim = await startSimChild(
  { apiKey: credentials.ApiKey, merchantId: credentials.MerchantId },
  profileArgs,
  memoryRun.settledInMemory === 'default' ? [] : ['--settled-in-memory', memoryRun.settledInMemory],
);
try {
  console.log(
    `simulator ${sim.url}; ${cpus().length} CPU(s) (${cpus()[0]?.model ?? 'unknown'}); node ${process.version}; load average ${load}`,
  );
  if (part === 'memory') {
    console.log(
      `memory: ${memoryRun.rate} items/s for ${memoryRun.minutes} min, settled items kept in memory ${memoryRun.settledInMemory === 'never' ? 'forever' : `${memoryRun.settledInMemory} s`}`,
    );
    reportMemory(await runMemory(sim.url, sim.child.pid!));
  }
  if (part === 'all' || part === 'workload') {
    console.log(
      `workload: ${perKind} transfers + ${perKind} payment intents, settled, 3 webhooks each to a bare node:http receiver, each fetched once (${fetchConcurrency} at a time)`,
    );
    const figures = await runWorkload(sim.url, sim.child.pid!);
    const msPerItem = (figures.simCpuSeconds * 1000) / figures.items;
    console.log(
      `settled ${figures.items} items (${figures.webhooks} webhooks, ${figures.fetches} fetches) in ${figures.seconds.toFixed(2)} s: ` +
        `${(figures.items / figures.seconds).toFixed(0)} items/s`,
    );
    console.log(
      `simulator CPU ${figures.simCpuSeconds.toFixed(2)} s: ${msPerItem.toFixed(2)} ms per settled item`,
    );
  }
  if (part === 'all' || part === 'requests') await runRequests(sim.url);
} finally {
  await sim.stop();
}
