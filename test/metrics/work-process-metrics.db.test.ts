import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { createQueues, enqueueIngest, type Queues } from '../../src/queues/index.ts';
import { createDaemonFixture, type DaemonFixture } from '../processing/support/daemon-fixture.ts';
import { startWorkerProcess, type WorkerProcess } from '../processing/support/worker-process.ts';
import { closedPort } from '../support/run-cli.ts';
import { TEST_REDIS_URL } from '../support/test-redis.ts';
import { until } from '../support/until.ts';

const RULES = resolve(import.meta.dirname, '../../docs/prometheus-rules.yml');
/** Debian's promtool (`.ci/run` installs the prometheus package when it is installable). */
const PROMTOOL = (process.env.PATH ?? '')
  .split(':')
  .map((folder) => join(folder, 'promtool'))
  .find((candidate) => existsSync(candidate));

interface Sample {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly value: number;
}

/** The samples of a Prometheus text exposition (what promtool would scrape). */
function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) {
      labels[pair[1]!] = pair[2]!;
    }
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

function seriesName(sample: Sample): string {
  const labels = Object.entries(sample.labels).map(([k, v]) => `${k}="${v}"`);
  return `${sample.name}{${labels.join(',')}}`;
}

function promtool(args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((done) => {
    execFile(PROMTOOL!, args, { timeout: 30_000 }, (error, stdout, stderr) =>
      done({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` }),
    );
  });
}

let fixture: DaemonFixture | undefined;
let worker: WorkerProcess | undefined;
let queues: Queues | undefined;
let redis: Redis | undefined;
const dir = mkdtempSync(join(tmpdir(), 'paysync-metrics-test-'));
afterEach(async () => {
  worker?.child.kill('SIGTERM');
  if (worker) await worker.exited;
  await queues?.close();
  await redis?.quit();
  await fixture?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

describe('paysync work alone serves metrics that the example rules evaluate', () => {
  it('/metrics has the queue and job series, /healthz and /readyz answer, and rules from docs/ fire on a real scrape', async () => {
    fixture = await createDaemonFixture();
    const db = fixture.database.db;
    // Business state the scrape reads from the database.
    await db
      .insertInto('discrepancies')
      .values({
        kind: 'amount_mismatch',
        resource_kind: 'transfer',
        resource_id: 'tr_metrics_1',
        detail: '{}',
        raw_body: null,
        inbox_id: null,
        dedupe_key: 'metrics-test-1',
        created_at: new Date().toISOString(),
        resolved_at: null,
      })
      .execute();
    await db
      .insertInto('balance_snapshots')
      .values({
        environment: fixture.config.environment,
        account_type: 'transfer',
        currency: 'XOF',
        amount: 125_000,
        as_of: '2026-11-23T10:00:00.000Z',
        taken_at: '2026-11-23T10:00:01.000Z',
        kind: 'manual',
        raw: '{}',
      })
      .execute();

    redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: null });
    queues = createQueues({ connection: redis, prefix: fixture.prefix });
    // A job that has waited an hour on a paused queue: the backlog the rule is about.
    await queues.followUp.pause();
    await queues.followUp.add('receipt', { note: 'waiting' } as never, {
      timestamp: Date.now() - 3_600_000,
    });

    const port = await closedPort();
    worker = await startWorkerProcess({ ...fixture.env, PAYSYNC_METRICS_PORT: String(port) });
    expect(worker.output()).toContain(`metrics and health on port ${port}`);
    const base = `http://127.0.0.1:${port}`;

    // One job that completes (an ingest of a row that is not there) and one that fails for good.
    await enqueueIngest(queues, 999_999);
    await queues.scheduled.add('no-such-task', { task: 'x', slot: 'y' }, { attempts: 1 });
    const { scheduled, ingest: ingestQueue } = queues;
    await until(
      async () => {
        const counts = await scheduled.getJobCounts('failed');
        const ingest = await ingestQueue.getJobCounts('waiting', 'active');
        return (counts.failed ?? 0) > 0 && ingest.waiting === 0 && ingest.active === 0;
      },
      { message: 'one scheduled job failed and the ingest job done' },
    );

    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ ready: true, reasons: [] });
    expect((await fetch(`${base}/nothing`)).status).toBe(404);

    const response = await fetch(`${base}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const samples = parseExposition(await response.text());
    const find = (name: string, labels: Record<string, string>) =>
      samples.find(
        (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
      );

    // Queue series, per queue, read from BullMQ on the scrape.
    for (const queue of ['ingest', 'sync', 'follow-up', 'receipts', 'scheduled']) {
      expect(find('paysync_queue_jobs', { queue, state: 'waiting' })).toBeDefined();
      expect(find('paysync_queue_oldest_waiting_age_seconds', { queue })).toBeDefined();
    }
    expect(find('paysync_queue_jobs', { queue: 'follow-up', state: 'paused' })?.value).toBe(1);
    const age = find('paysync_queue_oldest_waiting_age_seconds', { queue: 'follow-up' })!.value;
    expect(age).toBeGreaterThan(3590);
    expect(age).toBeLessThan(3700);
    expect(find('paysync_queue_oldest_waiting_age_seconds', { queue: 'ingest' })?.value).toBe(0);
    expect(find('paysync_queue_jobs', { queue: 'scheduled', state: 'failed' })?.value).toBe(1);
    // Job series, per job name, from the worker's events.
    expect(
      find('paysync_job_duration_seconds_count', {
        queue: 'ingest',
        job: 'ingest-event',
        outcome: 'ok',
      })?.value,
    ).toBe(1);
    expect(
      find('paysync_job_failures_total', { queue: 'scheduled', job: 'no-such-task', final: 'true' })
        ?.value,
    ).toBe(1);
    // Database gauges.
    expect(find('paysync_discrepancies_open', { kind: 'amount_mismatch' })?.value).toBe(1);
    expect(
      find('paysync_balance_minor_units', { account_type: 'transfer', currency: 'XOF' })?.value,
    ).toBe(125_000);
    expect(
      find('paysync_balance_drift_minor_units', { account_type: 'transfer', currency: 'XOF' })
        ?.value,
    ).toBe(0);

    // The example rules, parsed: the two this test evaluates read the scraped series.
    const rules = (
      parseYaml(readFileSync(RULES, 'utf8')) as {
        groups: { rules: { alert: string; expr: string }[] }[];
      }
    ).groups.flatMap((group) => group.rules);
    const exprOf = (alert: string) => rules.find((rule) => rule.alert === alert)?.expr ?? '';
    expect(exprOf('PaysyncQueueBacklog')).toContain('paysync_queue_oldest_waiting_age_seconds');
    expect(exprOf('PaysyncJobsFailingForGood')).toContain('paysync_job_failures_total');
    if (!PROMTOOL) {
      console.warn(
        'promtool is not installed (Debian package prometheus): the rules were parsed, not evaluated',
      );
      return;
    }
    // Checked and then evaluated by promtool against the scraped series.
    const check = await promtool(['check', 'rules', RULES]);
    expect(check.output).toContain('SUCCESS');
    expect(check.code).toBe(0);
    const backlog = samples.filter((s) => s.name === 'paysync_queue_oldest_waiting_age_seconds');
    const failures = samples.filter((s) => s.name === 'paysync_job_failures_total');
    const inputSeries = [
      // A gauge holds its scraped value for the whole test window.
      ...backlog.map((s) => ({ series: seriesName(s), values: `${s.value}+0x20` })),
      // A counter was 0 when the process started, and the scraped value since.
      ...failures.map((s) => ({ series: seriesName(s), values: `0 ${s.value}+0x20` })),
    ];
    const testFile = join(dir, 'rules.test.yml');
    writeFileSync(
      testFile,
      JSON.stringify({
        rule_files: [RULES],
        evaluation_interval: '1m',
        tests: [
          {
            interval: '1m',
            input_series: inputSeries,
            alert_rule_test: [
              {
                eval_time: '10m',
                alertname: 'PaysyncQueueBacklog',
                exp_alerts: [
                  {
                    exp_labels: { severity: 'page', queue: 'follow-up' },
                    exp_annotations: {
                      summary: 'paysync queue follow-up: a job has waited over 10 minutes',
                      description:
                        'Check that `paysync work` runs and its /readyz; raise PAYSYNC_WORKER_CONCURRENCY or add workers.',
                    },
                  },
                ],
              },
              {
                eval_time: '5m',
                alertname: 'PaysyncJobsFailingForGood',
                exp_alerts: [
                  {
                    exp_labels: { severity: 'ticket', queue: 'scheduled', job: 'no-such-task' },
                    exp_annotations: {
                      summary: 'paysync job no-such-task on scheduled failed for good',
                      description:
                        'Inspect the failed job at /admin/queues or in the worker logs, fix the cause, then retry it.',
                    },
                  },
                ],
              },
            ],
          },
        ],
      }),
    );
    const evaluated = await promtool(['test', 'rules', testFile]);
    expect(evaluated.output).toContain('SUCCESS');
    expect(evaluated.code).toBe(0);
  }, 90_000);
});
