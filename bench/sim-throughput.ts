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
 * Usage: npm run bench:sim [-- --items 1000 | --short] [--part all|workload|requests]
 *          [--fetch-concurrency 8] [--cpu-prof DIR]
 *          [--duration 10 --connections 50 --seed 10000]
 *
 * `--short` is 200 + 200 items and 2 s per GET target over 1,000 seeded items. `--cpu-prof DIR`
 * writes a V8 CPU profile of the simulator into DIR (read it with bench/profile-top.ts).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { createUpstreamClient } from '../src/upstream/index.ts';

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
if (part !== 'all' && part !== 'workload' && part !== 'requests') {
  console.error('--part must be all, workload or requests');
  process.exit(2);
}
for (const [name, value] of [
  ['--items', perKind],
  ['--duration', duration],
  ['--connections', connections],
  ['--seed', seedCount],
  ['--fetch-concurrency', fetchConcurrency],
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
async function runWorkload(simUrl: string, simPid: number): Promise<WorkloadFigures> {
  const client = createUpstreamClient({
    baseUrl: simUrl,
    apiKey: credentials.ApiKey,
    merchantId: credentials.MerchantId,
    rps: 1_000_000,
    concurrency: fetchConcurrency,
    validateRequests: false,
    now: () => new Date(),
  });
  let webhooks = 0;
  let fetches = 0;
  let failures = 0;
  let lastDoneAt = 0;
  const fetched = new Set<string>();
  const inFlight = new Set<Promise<void>>();
  const fetchOnce = (object: { id: string; reference?: string }, kind: string) => {
    if (fetched.has(object.id)) return;
    fetched.add(object.id);
    const done = (async () => {
      try {
        if (kind === 'payment_intent') await client.getPaymentIntent(object.id);
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
        fetches += 1;
        lastDoneAt = Date.now();
      } catch (error) {
        failures += 1;
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
      webhooks += 1;
      lastDoneAt = Date.now();
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
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;
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
          `no convergence within ${timeoutMs / 1000} s: ${webhooks} webhooks, ${fetches} fetches`,
        );
      }
      await sleep(50);
      if (Date.now() - lastPrint > 5000) {
        lastPrint = Date.now();
        console.log(
          `  ${((lastPrint - started) / 1000).toFixed(0)} s: ${webhooks}/${expectedWebhooks} webhooks, ${fetches}/${expectedItems} fetches`,
        );
      }
      if (
        webhooks >= expectedWebhooks &&
        fetches + failures >= expectedItems &&
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
    if (failures > 0) throw new Error(`${failures} fetches failed`);
    return {
      items: expectedItems,
      webhooks,
      fetches,
      seconds: (lastDoneAt - started) / 1000,
      simCpuSeconds,
    };
  } finally {
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  }
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
);
try {
  console.log(
    `simulator ${sim.url}; ${cpus().length} CPU(s) (${cpus()[0]?.model ?? 'unknown'}); node ${process.version}; load average ${load}`,
  );
  if (part !== 'requests') {
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
  if (part !== 'workload') await runRequests(sim.url);
} finally {
  await sim.stop();
}
