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
  /** Items the sweeps have listed so far (their run records' items seen). */
  swept: number;
}

export interface SoakSettings {
  minutes: number;
  /** Items offered per second, half transfers and half payment intents. */
  rate: number;
  sampleSeconds: number;
  write: boolean;
  label: string;
  database: string;
  /** Minutes left out of the flatness checks (start-up, first sweeps). */
  warmUpMinutes: number;
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
  /** The database's size on disk in bytes (SQLite file and its WAL; PostgreSQL's tables and indexes). */
  databaseBytes: () => Promise<number>;
}

interface Sample {
  seconds: number;
  offered: number;
  progress: SoakProgress;
  rssMb: number;
  cpuSeconds: number;
  simCpuSeconds: number;
  heapMb: number;
  /** Upstream calls the daemon made so far. */
  calls: number;
  simRssMb: number;
  redisMb: number;
  databaseMb: number;
}

/** One minute of the run: rates over the minute, levels at its end. */
interface MinuteRow {
  minute: number;
  settledPerSecond: number;
  cpuMsPerItem: number;
  rssMb: number;
  redisMb: number;
  databaseMb: number;
  /** Database growth over the minute per item settled in it, in KB. */
  databaseKbPerItem: number;
  simRssMb: number;
  open: number;
  /** Upstream calls in the minute per item settled in it, and items sweeps listed in it. */
  callsPerItem: number;
  swept: number;
}

/** The mean of `values`, or `fallback` when there are none. */
const mean = (values: readonly number[], fallback: number) =>
  values.length === 0 ? fallback : values.reduce((sum, value) => sum + value, 0) / values.length;
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

/** The daemon's V8 heap in MB and its upstream calls so far, from its /metrics. */
async function daemonMetrics(metricsUrl: string): Promise<{ heapMb: number; calls: number }> {
  try {
    const text = await (await fetch(metricsUrl, { signal: AbortSignal.timeout(5000) })).text();
    const match = /^paysync_nodejs_heap_size_used_bytes (\d+(?:\.\d+)?)/m.exec(text);
    let calls = 0;
    for (const call of text.matchAll(/^paysync_upstream_requests_total\{[^}]*\} (\d+)/gm)) {
      calls += Number(call[1]);
    }
    return { heapMb: match ? Number(match[1]) / 1024 / 1024 : Number.NaN, calls };
  } catch {
    return { heapMb: Number.NaN, calls: Number.NaN };
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

const fixed = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '-');

/** The per-minute samples as a markdown table. */
function minuteTable(rows: readonly MinuteRow[]): string[] {
  return [
    '| Minute | Settled items/s | Daemon CPU ms/item | Daemon RSS MB (mean of the minute) | Redis used MB | Database MB | Database KB per item | Simulator RSS MB | Inbox open | Upstream calls per item | Items swept |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (row) =>
        `| ${row.minute} | ${fixed(row.settledPerSecond, 1)} | ${fixed(row.cpuMsPerItem, 2)} | ${fixed(row.rssMb)} | ${fixed(row.redisMb, 1)} | ${fixed(row.databaseMb)} | ${fixed(row.databaseKbPerItem, 2)} | ${fixed(row.simRssMb)} | ${row.open} | ${fixed(row.callsPerItem, 2)} | ${row.swept} |`,
    ),
  ];
}

export interface FlatVerdict {
  flat: boolean;
  /** One line per check, for the console and the summary. */
  lines: string[];
  summary: {
    settled: string;
    cpu: string;
    rss: string;
    redis: string;
    database: string;
    flat: string;
  };
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
};

/**
 * Issue 22, build 2: after warm-up, settled items/s, the daemon's RSS and Redis's memory each
 * stay within ±10 % of their median over the minutes after warm-up (throughput is also held to
 * the rate offered: a daemon that settles a flat 50 of 200 is not keeping up); Redis at the end
 * is within 2× of minute 1; the database grows linearly with items, and no faster: its growth
 * per item settled in the second half is at most 10 % above the first half's.
 */
function judgeFlat(rows: readonly MinuteRow[], warmUp: number, rate: number): FlatVerdict {
  const after = rows.filter((row) => row.minute > warmUp);
  if (after.length < 2) {
    const none = 'too short to judge';
    return {
      flat: false,
      lines: [`flatness: ${none} (needs at least 2 minutes after ${warmUp} of warm-up)`],
      summary: { settled: none, cpu: none, rss: none, redis: none, database: none, flat: 'n/a' },
    };
  }
  const spread = (values: readonly number[]) => {
    const mid = median(values);
    const worst = Math.max(...values.map((v) => Math.abs(v - mid) / mid));
    return { mid, worst, min: Math.min(...values), max: Math.max(...values) };
  };
  const settled = spread(after.map((row) => row.settledPerSecond));
  const cpu = spread(after.map((row) => row.cpuMsPerItem));
  const rss = spread(after.map((row) => row.rssMb));
  const redis = spread(after.map((row) => row.redisMb));
  const half = Math.floor(after.length / 2);
  const growth = (part: readonly MinuteRow[]) => {
    const first = rows[part[0]!.minute - 2] ?? part[0]!;
    const last = part.at(-1)!;
    const items = part.reduce((sum, row) => sum + row.settledPerSecond * 60, 0);
    return ((last.databaseMb - first.databaseMb) * 1024) / items;
  };
  const firstHalf = growth(after.slice(0, half));
  const secondHalf = growth(after.slice(half));
  const minuteOne = rows[0]!.redisMb;
  const redisEnd = rows.at(-1)!.redisMb;
  const checks = {
    settled: settled.worst <= 0.1 && settled.mid >= 0.9 * rate,
    rss: rss.worst <= 0.1,
    redis: redis.worst <= 0.1 && redisEnd <= 2 * minuteOne,
    database: secondHalf <= 1.1 * firstHalf,
  };
  const pct = (value: number) => `±${(100 * value).toFixed(0)} %`;
  const yes = (ok: boolean) => (ok ? 'flat' : 'NOT flat');
  const summary = {
    settled: `${fixed(settled.min, 1)}–${fixed(settled.max, 1)} (median ${fixed(settled.mid, 1)}, ${pct(settled.worst)})`,
    cpu: `${fixed(cpu.min, 2)}–${fixed(cpu.max, 2)} (median ${fixed(cpu.mid, 2)}, ${pct(cpu.worst)})`,
    rss: `${fixed(rss.min)}–${fixed(rss.max)} (${pct(rss.worst)})`,
    redis: `${fixed(minuteOne, 1)} → ${fixed(redisEnd, 1)}; ${fixed(redis.min, 1)}–${fixed(redis.max, 1)} after warm-up (${pct(redis.worst)})`,
    database: `${fixed(rows.at(-1)!.databaseMb)} MB; ${fixed(firstHalf, 2)} → ${fixed(secondHalf, 2)} KB per item (first → second half)`,
    flat: Object.values(checks).every(Boolean)
      ? 'yes'
      : `no (${Object.entries(checks)
          .filter(([, ok]) => !ok)
          .map(([name]) => name)
          .join(', ')})`,
  };
  return {
    flat: Object.values(checks).every(Boolean),
    lines: [
      `after ${warmUp} min of warm-up (minutes ${after[0]!.minute}–${after.at(-1)!.minute}):`,
      `  settled items/s ${summary.settled}: ${yes(checks.settled)}${settled.mid < 0.9 * rate ? ` (below 90 % of the ${rate}/s offered)` : ''}`,
      `  daemon CPU ms/item ${summary.cpu}`,
      `  daemon RSS MB ${summary.rss}: ${yes(checks.rss)}`,
      `  Redis MB ${summary.redis}: ${yes(checks.redis)}`,
      `  database ${summary.database}: ${checks.database ? 'linear' : 'growing faster than the items'}`,
      `  flat: ${summary.flat}`,
    ],
    summary,
  };
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

  /**
   * The simulator starts with 1,000,000,000 XOF on its transfer account, enough for about 40,000
   * seeded transfers (up to 50,000 minor units plus a 1 % fee each). Past that every transfer
   * fails `insufficient_balance`: at 200 items/s that is about 7 minutes in, the "drop at 7
   * minutes" of the earlier soaks (they counted only successful items as settled). So each
   * batch of transfers is funded first, and the run keeps the workload of its first minute.
   */
  const fundTransfers = async (count: number) => {
    const response = await fetch(`${context.simUrl}/__sim/balances/fund`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        mode: 'sandbox',
        accountType: 'transfer',
        currency: 'XOF',
        amount: count * 51_000,
      }),
    });
    if (!response.ok) throw new Error(`fund: ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
  };

  const seed = async (kind: keyof typeof seeded, count: number) => {
    if (count <= 0) return;
    if (kind === 'transfer') await fundTransfers(count);
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
      ...(await daemonMetrics(context.metricsUrl)),
      redisMb: await redisUsedMb(context.redis),
      databaseMb: (await context.databaseBytes()) / 1024 / 1024,
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
  const baseline = await takeSample();
  await Promise.all([feed(), sampler()]);
  const last = samples.at(-1)!.seconds >= minutes * 60 - 1 ? samples.at(-1)! : await takeSample();
  const loadAtEnd = load();

  /** The sample nearest to minute `m`. */
  const at = (m: number) =>
    samples.reduce((best, s) =>
      Math.abs(s.seconds - m * 60) < Math.abs(best.seconds - m * 60) ? s : best,
    );
  const minuteRows: MinuteRow[] = Array.from({ length: Math.floor(minutes) }, (_, i) => {
    const end = at(i + 1);
    const start = i === 0 ? baseline : at(i);
    const settled = end.progress.settled - start.progress.settled;
    const span = end.seconds - start.seconds;
    return {
      minute: i + 1,
      settledPerSecond: settled / span,
      cpuMsPerItem: settled > 0 ? (1000 * (end.cpuSeconds - start.cpuSeconds)) / settled : NaN,
      // A GC sawtooth makes one instant's RSS a poor level: the minute's mean of its samples.
      rssMb: mean(
        samples
          .filter((s) => s.seconds > start.seconds && s.seconds <= end.seconds)
          .map((s) => s.rssMb),
        end.rssMb,
      ),
      redisMb: end.redisMb,
      databaseMb: end.databaseMb,
      databaseKbPerItem: settled > 0 ? ((end.databaseMb - start.databaseMb) * 1024) / settled : NaN,
      simRssMb: end.simRssMb,
      open: end.progress.open,
      callsPerItem: settled > 0 ? (end.calls - start.calls) / settled : NaN,
      swept: end.progress.swept - start.progress.swept,
    };
  });
  const verdict = judgeFlat(minuteRows, settings.warmUpMinutes, rate);
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
    '',
    'per minute:',
    ...minuteTable(minuteRows),
    '',
    ...verdict.lines,
  ];
  console.log(`\n${lines.join('\n')}`);

  if (!settings.write) return;
  const label = settings.label ? ` (${settings.label})` : '';
  const run = `${new Date(started).toISOString().slice(0, 16)}Z${label}`;
  const { summary } = verdict;
  const row = [
    `| ${run} | ${settings.database} | ${rate} × ${minutes} min (warm-up ${settings.warmUpMinutes}) | ${(last.offered / seconds).toFixed(1)} | ${summary.settled} | ${summary.cpu} | ${summary.rss} | ${summary.redis} | ${summary.database} | ${fixed(at(1).simRssMb)} → ${fixed(last.simRssMb)} | ${backlog.items} / ${backlog.open} | ${summary.flat} | ${machine}, load ${loadAtStart} → ${loadAtEnd} |`,
  ].join('');
  const file = appendPerformanceRow({
    marker: '<!-- bench:soak-flat:rows (appended by `npm run bench:soak`) -->',
    header: [
      '### Flat in time: the soak table',
      '',
      '| Run | Database | Rate × time | Offered items/s | Settled items/s per minute after warm-up | Daemon CPU ms/item per minute | Daemon RSS MB after warm-up | Redis MB: min 1 → end; after warm-up | Database at end; growth per item | Simulator RSS MB min 1 → end | Backlog at end: items / inbox open | Flat | Machine |',
      '| --- | --- | --- | ---: | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ],
    row,
  });
  appendPerformanceRow({
    marker: '<!-- bench:soak-minutes:rows (appended by `npm run bench:soak`) -->',
    header: ['### Flat in time: each run minute by minute', ''],
    row: [
      `<details><summary>${run}, ${settings.database}, ${rate} items/s × ${minutes} min</summary>`,
      '',
      ...minuteTable(minuteRows),
      '',
      '</details>',
    ].join('\n'),
  });
  console.log(`wrote ${file}`);
}
