import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAudit } from '../../src/audit/index.ts';
import { loadConfig } from '../../src/config/index.ts';
import { insertInboxEvents } from '../../src/inbox/index.ts';
import { planPruning, pruneTables } from '../../src/retention/index.ts';
import { freshDatabase, testDialect, type TestDatabase } from '../support/test-database.ts';

const NOW = new Date('2030-03-01T12:00:00.000Z');
const daysAgo = (days: number) => new Date(NOW.getTime() - days * 86_400_000);

/**
 * The clean-audit records (`audit_runs`, one per clean `paysync audit`) are pruned with the run
 * records' period (PAYSYNC_RETENTION_RUNS_AFTER, 90 days by default), never the latest: the next
 * `paysync audit --since last-clean` starts from its watermark, however old it is.
 */
describe(`retention of clean-audit records on ${testDialect()}`, () => {
  let database: TestDatabase;
  const retention = loadConfig({}).retention;
  beforeEach(async () => {
    database = await freshDatabase();
  });
  afterEach(async () => {
    await database.cleanup();
  });

  /** A clean audit recorded at `at`, after one more webhook arrived (so each watermark differs). */
  async function cleanAuditAt(at: Date): Promise<number> {
    const key = `evt_${at.getTime()}_${Math.random().toString(36).slice(2)}`;
    await insertInboxEvents(database.db, [
      {
        dedupeKey: `event:${key}`,
        eventId: key,
        eventType: 'transfer.updated',
        rawBody: Buffer.from('{}'),
        headers: {},
        receivedAt: at,
      },
    ]);
    const report = await runAudit(database.db, { record: true, now: () => at });
    expect(report.violations).toEqual([]);
    return report.recordedRun!;
  }

  const incrementalBase = async () =>
    (await runAudit(database.db, { since: 'last-clean', now: () => NOW })).scope;

  it("keeps the latest clean audit's watermark, however old, and prunes the others", async () => {
    await cleanAuditAt(daysAgo(200));
    await cleanAuditAt(daysAgo(120));
    await cleanAuditAt(daysAgo(95));
    // Two at the same instant: the later record is the latest, as `--since last-clean` reads it.
    const latest = await cleanAuditAt(daysAgo(95));
    const before = await incrementalBase();
    expect(before?.basedOnRun?.id).toBe(latest);

    const plan = await planPruning(database.db, retention, NOW);
    expect(plan.find((t) => t.table === 'audit_runs')).toMatchObject({
      variable: 'PAYSYNC_RETENTION_RUNS_AFTER',
      count: 3,
    });
    const results = await pruneTables(database.db, retention, NOW, { pauseMs: 0 });
    expect(results.find((t) => t.table === 'audit_runs')!.pruned).toBe(3);

    // All four were older than 90 days; the next incremental audit starts where it did before.
    expect(await incrementalBase()).toEqual(before);
    expect(before).toMatchObject({ inboxIdAfter: 4, basedOnRun: { id: latest } });
    const again = await pruneTables(database.db, retention, NOW, { pauseMs: 0 });
    expect(again.find((t) => t.table === 'audit_runs')!.pruned).toBe(0);
  });

  it('lets an old latest go once a newer clean audit is on record', async () => {
    await cleanAuditAt(daysAgo(100));
    const recent = await cleanAuditAt(daysAgo(1));
    await pruneTables(database.db, retention, NOW, { pauseMs: 0 });
    expect(await incrementalBase()).toMatchObject({
      inboxIdAfter: 2,
      basedOnRun: { id: recent, startedAt: daysAgo(1).toISOString() },
    });
  });

  it('keeps every record when PAYSYNC_RETENTION_RUNS_AFTER is off', async () => {
    await cleanAuditAt(daysAgo(200));
    await cleanAuditAt(daysAgo(100));
    const off = loadConfig({ PAYSYNC_RETENTION_RUNS_AFTER: 'off' }).retention;
    const results = await pruneTables(database.db, off, NOW, { pauseMs: 0 });
    expect(results.find((t) => t.table === 'audit_runs')).toMatchObject({
      pruned: 0,
      periodMs: null,
    });
    // The older one still answers `--since <time>` between the two.
    const between = await runAudit(database.db, { since: daysAgo(150), now: () => NOW });
    expect(between.scope).toMatchObject({ inboxIdAfter: 1 });
  });
});
