import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createDaemonFixture, type DaemonFixture } from '../processing/support/daemon-fixture.ts';
import { DEFAULT_METRICS_PORT, loadConfig } from '../../src/config/index.ts';
import { createDaemon } from '../../src/daemon/index.ts';
import { stopAll } from '../../src/lifecycle/index.ts';
import { createLogger } from '../../src/logger.ts';
import { runCli } from '../support/run-cli.ts';

let fixture: DaemonFixture | undefined;
let blocker: Server | undefined;
afterEach(async () => {
  await fixture?.cleanup();
  fixture = undefined;
  await new Promise<void>((done) => (blocker?.listening ? blocker.close(() => done()) : done()));
  blocker = undefined;
});

describe('/metrics, /healthz and /readyz from every process role', () => {
  it('with PAYSYNC_METRICS_PORT unset and the default port taken, a scheduler warns and runs without them', async () => {
    fixture = await createDaemonFixture();
    blocker = createServer();
    // Taken by us, or already by something else: either way taken.
    await new Promise<void>((done) => {
      blocker!.once('error', () => done());
      blocker!.listen(DEFAULT_METRICS_PORT, '127.0.0.1', () => done());
    });
    const lines: string[] = [];
    const logger = createLogger({
      level: 'info',
      pretty: false,
      destination: { write: (line: string) => lines.push(line) },
    });
    const daemon = await createDaemon({
      config: loadConfig({ ...fixture.env, PAYSYNC_LOG_LEVEL: 'info' }),
      logger,
      roles: ['scheduler'],
      queuePrefix: fixture.prefix,
      host: '127.0.0.1',
    });
    try {
      for (const component of daemon.components) await component.start();
      expect(daemon.metricsServer?.url).toBeUndefined();
      expect(lines.join('')).toContain(
        `metrics: port ${DEFAULT_METRICS_PORT} cannot be used; running without /metrics, /healthz, /readyz → set PAYSYNC_METRICS_PORT to a free port`,
      );
      expect(lines.join('')).toContain('scheduler running');
    } finally {
      await stopAll(daemon.components);
    }
  }, 60_000);

  it('a scheduler alone serves them on a port of its own, with the queue and database gauges', async () => {
    fixture = await createDaemonFixture();
    await fixture.database.db
      .insertInto('discrepancies')
      .values({
        kind: 'stuck',
        resource_kind: 'transfer',
        resource_id: 'tr_sched_1',
        detail: '{}',
        raw_body: null,
        inbox_id: null,
        dedupe_key: 'sched-metrics-1',
        created_at: new Date().toISOString(),
        resolved_at: null,
      })
      .execute();
    // An open and an acknowledged alert, and a sweep that succeeded, for the alerts-by-state and
    // last-success gauges.
    const at = new Date().toISOString();
    for (const [i, status] of ['open', 'acked'].entries()) {
      await fixture.database.db
        .insertInto('alerts')
        .values({
          kind: 'transfer_failed',
          severity: 'warning',
          dedupe_key: `sched-metrics-alert-${i}`,
          title: 'a transfer failed',
          body: 'a transfer failed',
          detail: '{}',
          status,
          digested: 0,
          occurrences: 1,
          created_at: at,
          last_seen_at: at,
        })
        .execute();
    }
    const finishedAt = '2026-11-20T10:00:05.000Z';
    await fixture.database.db
      .insertInto('scheduled_runs')
      .values({
        task: 'sweep',
        slot: '2026-11-20T10:00:00.000Z',
        attempt: 1,
        trigger: 'schedule',
        started_at: '2026-11-20T10:00:00.000Z',
        heartbeat_at: finishedAt,
        finished_at: finishedAt,
        outcome: 'succeeded',
        checkpoint: null,
        error: null,
      })
      .execute();
    const daemon = await fixture.startDaemon(['scheduler'], { PAYSYNC_LOG_LEVEL: 'info' });
    expect(daemon.receiver).toBeUndefined();
    const base = daemon.metricsServer!.url!;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    const text = await (await fetch(`${base}/metrics`)).text();
    expect(text).toContain('paysync_queue_jobs{queue="scheduled",state="waiting"} 0');
    expect(text).toContain('paysync_queue_oldest_waiting_age_seconds{queue="sync"} 0');
    expect(text).toContain('paysync_discrepancies_open{kind="stuck"} 1');
    expect(text).toContain('paysync_alerts{state="open"} 1');
    expect(text).toContain('paysync_alerts{state="acked"} 1');
    expect(text).toMatch(
      new RegExp(
        `paysync_scheduled_task_last_success_timestamp_seconds\\{task="sweep"\\} ${Date.parse(finishedAt) / 1000}\\b`,
      ),
    );
    expect(fixture.logs.join('')).toContain('schedule: metrics and health on port');
  }, 60_000);

  it('start (all roles) answers them on the ops port, health also on the receiver port, and opens no metrics server', async () => {
    fixture = await createDaemonFixture();
    const daemon = await fixture.startDaemon(['receiver', 'workers', 'scheduler']);
    expect(daemon.metricsServer).toBeUndefined();
    const base = daemon.opsServer!.url;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    expect((await fetch(`${daemon.receiver!.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${daemon.receiver!.url}/readyz`)).status).toBe(200);
    expect((await fetch(`${daemon.receiver!.url}/metrics`)).status).toBe(404);
    const text = await (await fetch(`${base}/metrics`)).text();
    expect(text).toContain('paysync_queue_jobs{queue="ingest",state="waiting"} 0');
    expect(text).toContain('# TYPE paysync_job_duration_seconds histogram');
    expect(text).toContain('# TYPE paysync_upstream_throttles_total counter');

    // Every series the shipped rules and dashboard query exists, except the ones other
    // components add (docs/metrics.md, "Seams").
    const exported = new Set([...text.matchAll(/^# TYPE (\w+) /gm)].map((m) => m[1]));
    const later = [
      'paysync_alerts',
      'paysync_scheduled_task_last_success_timestamp_seconds',
      'paysync_missed_webhooks_total',
    ];
    for (const file of ['prometheus-rules.yml', 'grafana-dashboard.json']) {
      const content = readFileSync(resolve(import.meta.dirname, '../../docs', file), 'utf8');
      const queried = new Set(
        [...content.matchAll(/\b(paysync_\w+)/g)].map((m) =>
          m[1]!.replace(/_(bucket|count|sum)$/, ''),
        ),
      );
      for (const name of queried) {
        if (later.includes(name)) continue;
        expect(exported.has(name), `${file} queries ${name}`).toBe(true);
      }
    }
  }, 60_000);

  it('paysync schedule with its PAYSYNC_METRICS_PORT taken refuses to start in one line naming it, exit 1', async () => {
    fixture = await createDaemonFixture();
    blocker = createServer();
    const taken = await new Promise<number>((done) =>
      blocker!.listen(0, () => done((blocker!.address() as { port: number }).port)),
    );
    const result = await runCli(['schedule'], {
      env: { ...fixture.env, PAYSYNC_METRICS_PORT: String(taken) },
      timeoutMs: 30_000,
    });
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(
      // Bound to PAYSYNC_OPS_HOST, loopback by default.
      `port ${taken} on 127.0.0.1 is already in use → stop what holds it, or set PAYSYNC_METRICS_PORT (0 = any free port) to a free port`,
    );
  }, 60_000);
});
