/**
 * The soak mode of bench/pipeline.ts (issue 12, target 4: "RSS flat over a 10-minute soak at
 * 200 items/s: report the RSS at minutes 1, 5 and 10"). The pipeline bench starts the
 * simulator and `paysync start` as it always does; this part then feeds the simulator settled
 * items at a steady rate (half transfers, half payment intents, each sending its 3 webhooks)
 * for N minutes, samples the daemon's RSS (`VmRSS`), its V8 heap (its own /metrics), the
 * simulator's RSS and Redis's memory every few seconds, and reports the RSS at minutes 1, 5
 * and 10, the largest, the items offered and settled, and the backlog when the feed stops.
 * It does not wait for the backlog to drain.
 */
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import type { Redis } from 'ioredis';
import { appendPerformanceRow } from './performance-doc.ts';

export interface SoakProgress {
  /** Items `successful` in the ledger. */
  settled: number;
  /** Inbox rows: webhooks received (one row per event). */
  inbox: number;
  /** Inbox rows not yet processed. */
  open: number;
}

export interface SoakSettings {
  minutes: number;
  /** Items offered per second, half transfers and half payment intents. */
  rate: number;
  sampleSeconds: number;
  write: boolean;
  label: string;
  database: string;
}

export interface SoakContext {
  simUrl: string;
  daemonPid: number;
  /** The daemon's user + system CPU seconds so far. */
  daemonCpuSeconds: () => number;
  simPid: number;
  /** The simulator's user + system CPU seconds so far. */
  simCpuSeconds: () => number;
  /** The daemon's /metrics, for its V8 heap. */
  metricsUrl: string;
  redis: Redis;
  progress: () => Promise<SoakProgress>;
}

interface Sample {
  seconds: number;
  offered: number;
  progress: SoakProgress;
  rssMb: number;
  cpuSeconds: number;
  simCpuSeconds: number;
  heapMb: number;
  simRssMb: number;
  redisMb: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const mb = (value: number) => (Number.isFinite(value) ? `${value.toFixed(0)} MB` : 'n/a');
const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' / ');

/** Resident set size in MB now (VmRSS). */
function rssMb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

async function heapUsedMb(metricsUrl: string): Promise<number> {
  try {
    const text = await (await fetch(metricsUrl, { signal: AbortSignal.timeout(5000) })).text();
    const match = /^paysync_nodejs_heap_size_used_bytes (\d+(?:\.\d+)?)/m.exec(text);
    return match ? Number(match[1]) / 1024 / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

async function redisUsedMb(redis: Redis): Promise<number> {
  try {
    const info = await redis.info('memory');
    return Number(/used_memory:(\d+)/.exec(info)?.[1] ?? Number.NaN) / 1024 / 1024;
  } catch {
    return Number.NaN;
  }
}

export async function runSoak(settings: SoakSettings, context: SoakContext): Promise<void> {
  const { minutes, rate, sampleSeconds } = settings;
  const loadAtStart = load();
  console.log(
    `soak: ${rate} items/s offered (half transfers, half payment intents, settled, 3 webhooks each) for ${minutes} min; samples every ${sampleSeconds} s`,
  );
  const started = Date.now();
  const endsAt = started + minutes * 60_000;
  const seeded = { transfer: 0, payment_intent: 0 };
  const offered = () => seeded.transfer + seeded.payment_intent;

  const seed = async (kind: keyof typeof seeded, count: number) => {
    if (count <= 0) return;
    const response = await fetch(`${context.simUrl}/__sim/seed`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind, count, settle: true, failureRate: 0 }),
    });
    if (!response.ok) throw new Error(`seed ${kind}: ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
    seeded[kind] += count;
  };

  // Every half second, seed what the rate owes by now: a slow seed call is made up on the next.
  const feed = async () => {
    for (let now = Date.now(); now < endsAt; now = Date.now()) {
      const due = Math.floor((rate * (now - started)) / 1000);
      const transfers = Math.ceil(due / 2);
      await seed('transfer', transfers - seeded.transfer);
      await seed('payment_intent', due - transfers - seeded.payment_intent);
      await sleep(Math.max(0, 500 - (Date.now() - now)));
    }
  };

  const cpuAtStart = context.daemonCpuSeconds();
  const simCpuAtStart = context.simCpuSeconds();
  const samples: Sample[] = [];
  const takeSample = async (): Promise<Sample> => {
    const sample: Sample = {
      seconds: (Date.now() - started) / 1000,
      offered: offered(),
      rssMb: rssMb(context.daemonPid),
      cpuSeconds: context.daemonCpuSeconds(),
      simCpuSeconds: context.simCpuSeconds(),
      simRssMb: rssMb(context.simPid),
      progress: await context.progress(),
      heapMb: await heapUsedMb(context.metricsUrl),
      redisMb: await redisUsedMb(context.redis),
    };
    samples.push(sample);
    return sample;
  };
  const sampler = async () => {
    let lastPrint = -Infinity;
    let printed: Sample | undefined;
    for (let k = 1; started + k * sampleSeconds * 1000 <= endsAt; k += 1) {
      await sleep(Math.max(0, started + k * sampleSeconds * 1000 - Date.now()));
      const sample = await takeSample();
      if (Math.floor(sample.seconds / 30) > Math.floor(lastPrint / 30)) {
        // Daemon CPU since the last line: its share of one core, and per item settled meanwhile.
        const cpu = sample.cpuSeconds - (printed?.cpuSeconds ?? cpuAtStart);
        const settled = sample.progress.settled - (printed?.progress.settled ?? 0);
        const share = (100 * cpu) / (sample.seconds - (printed?.seconds ?? 0));
        const simShare =
          (100 * (sample.simCpuSeconds - (printed?.simCpuSeconds ?? simCpuAtStart))) /
          (sample.seconds - (printed?.seconds ?? 0));
        lastPrint = sample.seconds;
        printed = sample;
        console.log(
          `  ${sample.seconds.toFixed(0)} s: offered ${sample.offered}, settled ${sample.progress.settled}, inbox ${sample.progress.inbox} (${sample.progress.open} open); daemon RSS ${mb(sample.rssMb)}, heap ${mb(sample.heapMb)}, CPU ${share.toFixed(0)}% (${settled > 0 ? ((1000 * cpu) / settled).toFixed(1) : '-'} ms/item settled); simulator RSS ${mb(sample.simRssMb)}, CPU ${simShare.toFixed(0)}%; Redis ${mb(sample.redisMb)}; load ${loadavg()[0]!.toFixed(2)}`,
        );
      }
    }
  };
  await Promise.all([feed(), sampler()]);
  const last = samples.at(-1)!.seconds >= minutes * 60 - 1 ? samples.at(-1)! : await takeSample();
  const loadAtEnd = load();

  /** The sample nearest to minute `m`. */
  const at = (m: number) =>
    samples.reduce((best, s) =>
      Math.abs(s.seconds - m * 60) < Math.abs(best.seconds - m * 60) ? s : best,
    );
  const marks = [1, 5, 10].filter((m) => m <= minutes);
  if (!marks.includes(minutes)) marks.push(minutes);
  const byMinute = Array.from({ length: Math.floor(minutes) }, (_, i) => at(i + 1));
  const maxRss = Math.max(...samples.map((s) => s.rssMb));
  const seconds = last.seconds;
  const oneMinuteBefore = at(minutes - 1);
  const settledLastMinute =
    minutes >= 2
      ? (last.progress.settled - oneMinuteBefore.progress.settled) /
        (last.seconds - oneMinuteBefore.seconds)
      : Number.NaN;
  const backlog = {
    items: last.offered - last.progress.settled,
    undelivered: last.offered * 3 - last.progress.inbox,
    open: last.progress.open,
  };
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}, Node ${process.version}`;
  const lines = [
    `offered ${last.offered} items in ${seconds.toFixed(0)} s (${(last.offered / seconds).toFixed(1)} items/s of ${rate} asked); settled ${last.progress.settled} (${(last.progress.settled / seconds).toFixed(1)} items/s over the run${Number.isFinite(settledLastMinute) ? `, ${settledLastMinute.toFixed(1)} in the last minute` : ''})`,
    `backlog when the feed stopped: ${backlog.items} items not settled; ${backlog.undelivered} webhooks not yet received; ${backlog.open} inbox rows open`,
    `daemon RSS ${marks.map((m) => `min ${m} ${mb(at(m).rssMb)}`).join(' · ')} · max ${mb(maxRss)} (samples every ${sampleSeconds} s)`,
    `daemon heap used ${marks.map((m) => `min ${m} ${mb(at(m).heapMb)}`).join(' · ')}`,
    `daemon RSS by minute (MB): ${byMinute.map((s) => s.rssMb.toFixed(0)).join(', ')}`,
    `daemon CPU ${(last.cpuSeconds - cpuAtStart).toFixed(1)} s (${((1000 * (last.cpuSeconds - cpuAtStart)) / last.progress.settled).toFixed(2)} ms per settled item); simulator CPU ${(last.simCpuSeconds - simCpuAtStart).toFixed(1)} s`,
    `simulator RSS ${mb(at(1).simRssMb)} → ${mb(last.simRssMb)}; Redis used memory ${mb(at(1).redisMb)} → ${mb(last.redisMb)} (min 1 → end)`,
    `machine: ${machine}; load average at start ${loadAtStart}, at end ${loadAtEnd}`,
  ];
  console.log(`\n${lines.join('\n')}`);

  if (!settings.write) return;
  const label = settings.label ? ` (${settings.label})` : '';
  const row = `| ${new Date(started).toISOString().slice(0, 16)}Z${label} | ${settings.database} | ${rate} × ${minutes} min | ${(last.offered / seconds).toFixed(1)} | ${(last.progress.settled / seconds).toFixed(1)}${Number.isFinite(settledLastMinute) ? ` (${settledLastMinute.toFixed(1)})` : ''} | ${backlog.items} / ${backlog.undelivered} / ${backlog.open} | ${marks.map((m) => at(m).rssMb.toFixed(0)).join(' / ')} MB | ${maxRss.toFixed(0)} MB | ${marks.map((m) => at(m).heapMb.toFixed(0)).join(' / ')} MB | ${byMinute.map((s) => s.rssMb.toFixed(0)).join(', ')} | ${machine}, load ${loadAtStart} → ${loadAtEnd} |`;
  const file = appendPerformanceRow({
    marker: '<!-- bench:soak:rows (appended by `npm run bench:soak`) -->',
    header: [
      '## Soak (`npm run bench:soak`)',
      '',
      '| Run | Database | Asked (items/s × time) | Offered items/s | Settled items/s (last minute) | Backlog at end: items / webhooks not received / inbox open | Daemon RSS at min 1 / 5 / 10 | Daemon max RSS | Daemon heap used at min 1 / 5 / 10 | Daemon RSS each minute (MB) | Machine |',
      '| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |',
      '',
    ],
    row,
  });
  console.log(`wrote ${file}`);
}
