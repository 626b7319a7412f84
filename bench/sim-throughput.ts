/**
 * Request rate of the simulator on simple GETs, measured with autocannon.
 * The simulator runs as `paysync sim` in a child process so the load tool does not share its
 * event loop. Usage: npm run bench:sim [-- --duration 10 --connections 50]
 */
import { spawn } from 'node:child_process';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    seed: { type: 'string', default: '10000' },
  },
});
const duration = Number(values.duration);
const connections = Number(values.connections);
const seedCount = Number(values.seed);

const credentials = { ApiKey: 'sk_bench_key', MerchantId: 'mch_bench', Environment: 'sandbox' };

async function startSimProcess(): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(
    process.execPath,
    [
      'bin/paysync.js',
      'sim',
      '--port',
      '0',
      '--api-key',
      credentials.ApiKey,
      '--merchant-id',
      credentials.MerchantId,
      '--seed',
      '7',
    ],
    { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, PAYSYNC_LOG_LEVEL: 'warn' } },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /^PAYSYNC_UPSTREAM_URL=(\S+)$/m.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
    child.on('exit', (code) => reject(new Error(`paysync sim exited with ${code}`)));
  });
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        child.on('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

async function post(url: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as Record<string, unknown>;
}

const sim = await startSimProcess();
try {
  await post(`${sim.url}/__sim/seed`, { kind: 'transfer', count: seedCount, settle: true });
  await post(`${sim.url}/__sim/seed`, { kind: 'payment_intent', count: seedCount, settle: true });
  const intent = await post(`${sim.url}/__sim/payment-intents`, { amount: 1_000 });
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
    `simulator ${sim.url}; ${cpus().length} CPU(s) (${cpus()[0]?.model ?? 'unknown'}); node ${process.version}`,
  );
  console.log(
    `autocannon: ${connections} connections, ${duration} s per target, ${seedCount} transfers + ${seedCount} intents seeded\n`,
  );
  for (const target of targets) {
    const result = await autocannon({
      url: `${sim.url}${target.path}`,
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
} finally {
  await sim.stop();
}
