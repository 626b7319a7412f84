import { startSimChild } from './sim-child.ts';
/**
 * CPU the daemon spends per upstream call: the UpstreamClient fetching items by id
 * (`getPaymentIntent`, the sync path's GET) from the simulator, which runs as `paysync sim` in a
 * child process so that this process's CPU is the client's alone.
 *
 * Usage: npm run bench:upstream [-- --items 2000 --concurrency 8 --rounds 3 --transport http|fetch]
 * `--transport fetch` injects global fetch (undici) through the client's `fetch` option, for a
 * before/after in the same conditions. Profile with
 * `node --cpu-prof --cpu-prof-dir=prof --import tsx bench/upstream-client.ts`, then
 * `npx tsx bench/profile-top.ts prof`.
 */
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import pLimit from 'p-limit';
import { createUpstreamClient, type UpstreamClientOptions } from '../src/upstream/index.ts';
import { benchCli } from './bench-cli.ts';

benchCli(import.meta.filename);
const { values } = parseArgs({
  options: {
    items: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '3' },
    transport: { type: 'string', default: 'http' },
  },
});
const items = Number(values.items);
const concurrency = Number(values.concurrency);
const rounds = Number(values.rounds);
const transports = values.transport.split(',');
for (const transport of transports) {
  if (transport !== 'http' && transport !== 'fetch') {
    console.error(`--transport must be http, fetch or both comma-separated, not ${transport}`);
    process.exit(2);
  }
}

const credentials = { apiKey: 'sk_bench_key', merchantId: 'mch_bench' };

async function seedIntents(url: string, count: number): Promise<string[]> {
  const response = await fetch(`${url}/__sim/seed`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ kind: 'payment_intent', count, settle: true }),
  });
  if (!response.ok) throw new Error(`seed: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { ids: string[] }).ids;
}

const sim = await startSimChild(credentials);
try {
  const ids = await seedIntents(sim.url, items);
  console.log(
    `upstream client bench: ${ids.length} payment intents by id, concurrency ${concurrency}, ` +
      `${rounds} round(s) per transport; ${cpus().length} CPU(s); node ${process.version}; ` +
      `load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
  );
  for (const transport of transports) {
    const options: UpstreamClientOptions = {
      baseUrl: sim.url,
      ...credentials,
      environment: 'sandbox',
      rps: 10_000,
      concurrency,
      now: () => new Date(),
      ...(transport === 'fetch'
        ? { fetch: (input: string, init: RequestInit) => globalThis.fetch(input, init) }
        : {}),
    };
    const client = createUpstreamClient(options);
    // One warm-up pass so JIT and connection set-up are not counted.
    const limit = pLimit(concurrency);
    const fetchAll = () => Promise.all(ids.map((id) => limit(() => client.getPaymentIntent(id))));
    await fetchAll();
    for (let round = 1; round <= rounds; round += 1) {
      const cpuBefore = process.cpuUsage();
      const started = performance.now();
      const answers = await fetchAll();
      const elapsedMs = performance.now() - started;
      const cpu = process.cpuUsage(cpuBefore);
      const cpuMs = (cpu.user + cpu.system) / 1000;
      const settled = answers.filter((intent) => intent.status === 'successful').length;
      console.log(
        `${transport.padEnd(5)} round ${round}: ${(cpuMs / ids.length).toFixed(3)} ms CPU per call ` +
          `(user ${(cpu.user / 1000 / ids.length).toFixed(3)}, system ${(cpu.system / 1000 / ids.length).toFixed(3)}) · ` +
          `${Math.round((ids.length / elapsedMs) * 1000)} calls/s · ${settled}/${ids.length} successful`,
      );
    }
    const stats = client.stats();
    console.log(`${transport.padEnd(5)} requests ${stats.requests}, retries ${stats.retries}`);
    (client as { close?: () => void }).close?.();
  }
} finally {
  await sim.stop();
}
