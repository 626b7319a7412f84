import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAudit, type AuditReport } from '../../src/audit/index.ts';
import { takeBalanceSnapshot } from '../../src/balances/index.ts';
import {
  countInboxEvents,
  findInboxEvent,
  latestInboxId,
  type InboxEvent,
} from '../../src/inbox/index.ts';
import { sweepCoverage } from '../../src/polling/index.ts';
import { buildDailyReport, pendingSlaOf } from '../../src/reports/index.ts';
import { planPruning } from '../../src/retention/index.ts';
import { recentRuns, recordScheduledRun } from '../../src/runs/index.ts';
import {
  createDaemonFixture,
  queueBacklog,
  type DaemonFixture,
} from '../processing/support/daemon-fixture.ts';
import { waitForCatchUp } from '../processing/support/end-state.ts';
import { signedEvent } from '../receiver/support/receiver-fixture.ts';
import { generateMixedTraffic } from '../support/mixed-traffic.ts';
import { runCli, type CliResult } from '../support/run-cli.ts';
import { runCliInProcess } from '../support/run-cli-in-process.ts';
import { testDialect } from '../support/test-database.ts';
import { until } from '../support/until.ts';

const DAY_MS = 86_400_000;
/** Everything older than a second goes: retention "under fire", as the long chaos run sets it. */
const AGGRESSIVE = {
  PAYSYNC_RETENTION_INBOX_BODY_AFTER: '1s',
  PAYSYNC_RETENTION_OUTBOX_AFTER: '1s',
  PAYSYNC_RETENTION_RUNS_AFTER: '1s',
  PAYSYNC_RETENTION_ALERT_DELIVERIES_AFTER: '1s',
};

interface PruneJson {
  readonly dryRun: boolean;
  readonly runId?: number;
  readonly tables: {
    table: string;
    count: number;
    pruned?: number;
    oldest: string | null;
    newest: string | null;
  }[];
}

/**
 * Retention against a real run: the daemon books a mixed workload from the simulator, then
 * `paysync prune` with every period at one second takes what the policy lets go. What users
 * rely on must not move: a redelivered event is still a duplicate, the audit stays clean, the
 * export of the day is byte for byte the same, and so is the day's report.
 */
// The first command runs as a real process, to prove the boundary; the other checks of output
// and exit codes run the same program in this process (runCliInProcess, issue 39).
describe(`retention on ${testDialect()}`, () => {
  let fixture: DaemonFixture;
  let env: Record<string, string>;
  const logger = pino({ level: 'silent' });
  /** A processed event with an event id, as it was before pruning. */
  let sample: InboxEvent;
  let auditBefore: AuditReport;
  let exportBefore: CliResult;
  let reportBefore: string;
  let inboxRowsBefore: number;
  let day: string;
  let exportTo: string;
  const reportAt = new Date();

  const exportDay = () =>
    runCli(['export', '--from', day, '--to', exportTo, '--format', 'csv'], {
      env,
      timeoutMs: 60_000,
    });
  const dailyReport = async () =>
    JSON.stringify(
      await buildDailyReport({
        db: fixture.database.db,
        environment: fixture.config.environment,
        day,
        timeZone: fixture.config.books.timeZone,
        now: reportAt,
        sla: pendingSlaOf(fixture.config.janitor.stuckAfterMs),
        coverage: sweepCoverage(fixture.database.db, fixture.config.environment),
      }),
    );
  const audit = () =>
    runAudit(fixture.database.db, {
      truth: fixture.sim.control.groundTruth(),
      mode: 'sandbox',
      now: () => new Date(),
    });
  const anyTime = { since: new Date(0) };

  beforeAll(async () => {
    fixture = await createDaemonFixture();
    env = { ...fixture.env, ...AGGRESSIVE };
    await fixture.startDaemon(['receiver', 'workers']);
    await fixture.registerWebhook();
    await takeBalanceSnapshot({
      db: fixture.database.db,
      upstream: fixture.client,
      logger,
      environment: 'sandbox',
      now: () => new Date(),
    });
    await generateMixedTraffic(fixture.sim, fixture.client, {
      transfers: 20,
      paymentIntents: 20,
      refunds: 6,
      paymentRefunds: 4,
      backlog: () => queueBacklog(fixture.daemon!),
    });
    await waitForCatchUp(fixture.database.db, fixture.sim, 120_000);
    // Old run records: sweeps with a newer success, and an export task whose only success is old.
    const at = (daysAgo: number) => ({
      db: fixture.database.db,
      logger,
      now: () => new Date(Date.now() - daysAgo * DAY_MS),
    });
    const slot = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY_MS).toISOString();
    await recordScheduledRun(at(10), { task: 'sweep', slot: slot(10) }, async () => undefined);
    await recordScheduledRun(at(0), { task: 'sweep', slot: slot(0) }, async () => undefined);
    await recordScheduledRun(at(10), { task: 'export', slot: slot(10) }, async () => undefined);
    await recordScheduledRun(at(9), { task: 'export', slot: slot(9) }, async () => {
      throw new Error('disk full');
    });

    const last = await latestInboxId(fixture.database.db);
    for (let id = last; id > 0 && !sample; id -= 1) {
      const event = await findInboxEvent(fixture.database.db, id);
      if (event?.status === 'processed' && event.eventId && event.resourceId) sample = event;
    }
    // The books day of the traffic (the simulator's clock starts an hour back), and the export
    // window around it (--to is exclusive).
    day = new Date(Date.now() - 3_600_000).toISOString().slice(0, 10);
    exportTo = new Date(Date.now() + DAY_MS).toISOString().slice(0, 10);
    auditBefore = await audit();
    exportBefore = await exportDay();
    reportBefore = await dailyReport();
    inboxRowsBefore = await countInboxEvents(fixture.database.db, anyTime);
    // Let every row grow older than the one-second periods.
    await new Promise((resolve) => setTimeout(resolve, 1100));
  }, 300_000);

  afterAll(async () => {
    await fixture?.cleanup();
  });

  it('starts from clean books, a non-empty export and a processed event with its body', () => {
    expect(auditBefore.violations).toEqual([]);
    expect(exportBefore.code).toBe(0);
    expect(exportBefore.stdout.trim().split('\n').length).toBeGreaterThan(20);
    expect(sample.rawBody.length).toBeGreaterThan(0);
    expect(sample.bodyPrunedAt).toBeNull();
  });

  it('--dry-run says per table what would go, and changes nothing', async () => {
    const now = new Date();
    const planBefore = await planPruning(fixture.database.db, fixture.config.retention, now);
    const result = await runCli(['prune', '--dry-run', '--json'], { env });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout) as PruneJson;
    expect(json.dryRun).toBe(true);
    const inbox = json.tables.find((t) => t.table === 'webhook_inbox')!;
    expect(inbox.count).toBeGreaterThanOrEqual(50);
    expect(inbox.oldest! <= inbox.newest!).toBe(true);
    expect(json.tables.find((t) => t.table === 'scheduled_runs')!.count).toBe(1);
    const text = await runCliInProcess(['prune', '--dry-run'], { env });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      /^TABLE\s+REMOVES\s+KEEP FOR\s+OLDER THAN\s+ROWS\s+OLDEST\s+NEWEST$/m,
    );
    expect(text.stdout).toMatch(/^webhook_inbox\s+raw body\s+1s\s/m);
    expect(text.stdout).toContain('prune: dry run, nothing changed:');
    // Nothing moved: the same plan, the body still there, no run recorded.
    expect(await planPruning(fixture.database.db, fixture.config.retention, now)).toEqual(
      planBefore,
    );
    const still = await findInboxEvent(fixture.database.db, sample.id);
    expect(still?.bodyPrunedAt).toBeNull();
    expect(still?.rawBody.equals(sample.rawBody)).toBe(true);
    expect(await recentRuns(fixture.database.db, { task: 'retention' })).toEqual([]);
  });

  it('prunes what the policy lets go and leaves a run record with the counts', async () => {
    const result = await runCliInProcess(['prune', '--json'], { env });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout) as PruneJson;
    const pruned = (table: string) => json.tables.find((t) => t.table === table)!.pruned!;
    expect(pruned('webhook_inbox')).toBeGreaterThanOrEqual(50);
    expect(pruned('scheduled_runs')).toBe(1);

    const pruneRuns = await recentRuns(fixture.database.db, { task: 'retention' });
    expect(pruneRuns).toHaveLength(1);
    expect(pruneRuns[0]).toMatchObject({
      id: json.runId,
      outcome: 'succeeded',
      trigger: 'manual',
      itemsChanged: json.tables.reduce((sum, t) => sum + t.pruned!, 0),
    });
    expect(pruneRuns[0]!.checkpoint).toContain(`webhook_inbox ${pruned('webhook_inbox')}`);

    const row = await findInboxEvent(fixture.database.db, sample.id);
    expect(row).toMatchObject({
      dedupeKey: sample.dedupeKey,
      eventId: sample.eventId,
      eventType: sample.eventType,
      status: 'processed',
      resourceKind: sample.resourceKind,
      resourceId: sample.resourceId,
    });
    expect(row!.rawBody.length).toBe(0);
    expect(row!.headers).toEqual({});
    expect(row!.bodyPrunedAt).not.toBeNull();
    expect(await countInboxEvents(fixture.database.db, anyTime)).toBe(inboxRowsBefore);

    // The old sweep went; the export task keeps its latest success and its latest run.
    const sweeps = await recentRuns(fixture.database.db, { task: 'sweep' });
    expect(sweeps).toHaveLength(1);
    const exportRuns = await recentRuns(fixture.database.db, { task: 'export' });
    expect(exportRuns.map((r) => r.outcome).sort()).toEqual(['failed', 'succeeded']);

    // A second run finds nothing left.
    const again = JSON.parse(
      (await runCliInProcess(['prune', '--json'], { env })).stdout,
    ) as PruneJson;
    expect(again.tables.find((t) => t.table === 'webhook_inbox')!.pruned).toBe(0);
  });

  it('keeps what the audit, the export of the day and the daily report read', async () => {
    const auditAfter = await audit();
    expect(auditAfter.violations).toEqual([]);
    // The same books judged; only the consumed outbox rows it looks over are gone.
    expect({ ...auditAfter.counts, outbox: 0 }).toEqual({ ...auditBefore.counts, outbox: 0 });
    expect(auditBefore.counts.outbox).toBeGreaterThan(0);
    const exportAfter = await exportDay();
    expect(exportAfter.code).toBe(0);
    expect(exportAfter.stdout).toBe(exportBefore.stdout);
    expect(await dailyReport()).toBe(reportBefore);
  });

  it('a redelivered event whose body was pruned is still a duplicate: 2xx, no new row', async () => {
    const event = signedEvent(fixture.env.PAYSYNC_WEBHOOK_SECRET!, {
      id: sample.eventId!,
      body: sample.rawBody.toString('utf8'),
    });
    const response = await fetch(`${fixture.daemon!.receiver!.url}${fixture.config.webhook.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...event.headers },
      body: event.body,
    });
    expect(response.status).toBeLessThan(300);
    expect(await countInboxEvents(fixture.database.db, anyTime)).toBe(inboxRowsBefore);
  });

  it('show lists a pruned event and says its body was pruned; replay still works', async () => {
    const show = await runCliInProcess(['show', sample.resourceId!], { env });
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/had their raw body pruned by retention/);
    const replay = await runCliInProcess(['replay', String(sample.id)], { env });
    expect(replay.stderr).toBe('');
    expect(replay.code).toBe(0);
    // Reopened by the replay; the worker reads the resource the row kept and fetches it again.
    const row = await until(
      async () => {
        const found = await findInboxEvent(fixture.database.db, sample.id);
        return found?.status === 'processed' ? found : undefined;
      },
      { message: 'the replayed row processed', timeoutMs: 60_000 },
    );
    expect(row.lastError).toBeNull();
    expect((await audit()).violations).toEqual([]);
  });
});
