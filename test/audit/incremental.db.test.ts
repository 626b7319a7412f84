import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAudit, type AuditReport, type AuditSince } from '../../src/audit/index.ts';
import { insertInboxEvent, recordInboxResource } from '../../src/inbox/index.ts';
import { applyPaymentIntent, recordFetchCoverage } from '../../src/ledger/index.ts';
import { paymentIntentFixture, seen } from '../ledger/support/ledger-fixtures.ts';
import { freshDatabase, testDialect, type TestDatabase } from '../support/test-database.ts';
import {
  dropAppendOnlyTriggers,
  journalId,
  keepDayTotalsInStep,
  writeCleanBooks,
} from './support/audit-books.ts';

/**
 * Issue 22, build 5: `paysync audit --since last-clean` judges only what changed since the last
 * clean audit, finds what went wrong in it, and moves its watermark only when clean. The clean
 * books were synced on 1 March (`seen()`); the baseline audit runs on 2 March at midnight.
 */
describe(`incremental audit on ${testDialect()}`, () => {
  let database: TestDatabase;
  const BASELINE = '2026-03-02T00:00:00.000Z';
  const LATER = '2026-03-02T02:00:00.000Z';
  const checks = (report: AuditReport) => report.violations.map((v) => v.check);
  const audit = (at: string, since?: AuditSince) =>
    runAudit(database.db, {
      now: () => new Date(at),
      record: true,
      ...(since ? { since } : {}),
    });
  /** A new settled intent, synced after the baseline by the real ledger. */
  const newSettledIntent = (id: string) =>
    applyPaymentIntent(
      database.db,
      paymentIntentFixture({ id, purchaseReference: `order-${id}`, status: 'successful' }),
      seen({ observedAt: '2026-03-02T01:00:00.000Z' }),
    );
  const processedInboxRow = async (id: string, processedAt: string | null) => {
    const { inboxId } = await insertInboxEvent(database.db, {
      receivedAt: new Date('2026-03-01T12:00:00.000Z'),
      dedupeKey: `evt-${id}-${Math.random()}`,
      eventId: undefined,
      eventType: undefined,
      rawBody: Buffer.from('{}'),
      headers: {},
    });
    await recordInboxResource(database.db, inboxId, { kind: 'payment_intent', id });
    if (processedAt !== null) await markProcessed(inboxId, processedAt);
    return inboxId;
  };
  const markProcessed = (inboxId: number, at: string) =>
    database.db
      .updateTable('webhook_inbox')
      .set({ status: 'processed', processed_at: at })
      .where('id', '=', inboxId)
      .execute();

  let baseline: AuditReport;
  beforeEach(async () => {
    database = await freshDatabase();
    await writeCleanBooks(database.db);
    baseline = await audit(BASELINE);
    expect(baseline.clean).toBe(true);
  });
  afterEach(async () => {
    await database.cleanup();
  });

  it('the full audit records its watermark; --since last-clean then reads only the new item', async () => {
    expect(baseline.mode).toBe('full');
    expect(baseline.scope).toBeNull();
    expect(baseline.recordedRun).toEqual(expect.any(Number));
    expect(baseline.counts).toMatchObject({ items: 7, journals: 7 });
    await newSettledIntent('pi_9');
    const report = await audit(LATER, 'last-clean');
    expect(report.violations).toEqual([]);
    expect(report.mode).toBe('incremental');
    expect(report.counts).toMatchObject({ items: 1, journals: 1, lines: 2 });
    expect(report.scope).toEqual({
      from: '2026-03-01T23:50:00.000Z',
      journalIdAfter: baseline.watermark.maxJournalId,
      inboxIdAfter: baseline.watermark.maxInboxId,
      basedOnRun: { id: baseline.recordedRun, startedAt: BASELINE },
    });
    expect(report.range).toContain(`clean audit ${baseline.recordedRun} of ${BASELINE}`);
    // The clean incremental run is the next starting point.
    expect(report.recordedRun).toBeGreaterThan(baseline.recordedRun!);
    const next = await audit('2026-03-02T03:00:00.000Z', 'last-clean');
    expect(next.scope?.basedOnRun?.id).toBe(report.recordedRun);
    expect(next.scope?.journalIdAfter).toBe(report.watermark.maxJournalId);
    expect(report.watermark.maxJournalId).toBeGreaterThan(baseline.watermark.maxJournalId);
  });

  it('finds a new journal that does not balance, and keeps the old watermark', async () => {
    await newSettledIntent('pi_9');
    await dropAppendOnlyTriggers(database.db);
    const id = await journalId(database.db, 'payment_intent', 'pi_9', 'settlement-1');
    await sql`update journal_lines set amount = 4000
      where journal_id = ${id} and account = 'service:collection'`.execute(database.db);
    await keepDayTotalsInStep(database.db);
    const report = await audit(LATER, 'last-clean');
    expect(checks(report)).toEqual(['unbalanced_journal']);
    expect(report.violations[0]!.ids).toMatchObject({ journalId: String(id), resourceId: 'pi_9' });
    expect(report.recordedRun).toBeNull();
    const again = await audit('2026-03-02T03:00:00.000Z', 'last-clean');
    expect(again.scope?.basedOnRun?.id).toBe(baseline.recordedRun);
    expect(checks(again)).toEqual(['unbalanced_journal']);
  });

  it('finds a second settlement of an item booked before the watermark', async () => {
    const first = await journalId(database.db, 'transfer', 'tr_3', 'settlement-1');
    await sql`insert into journals (resource_kind, resource_id, settlement_key, entry_type,
        description, effective_at, posted_at, via)
      values ('transfer', 'tr_3', 'settlement-2', 'settlement', 'again', ${LATER}, ${LATER},
        'webhook')`.execute(database.db);
    const second = await journalId(database.db, 'transfer', 'tr_3', 'settlement-2');
    await sql`insert into journal_lines (journal_id, line_no, account, currency, amount)
      select ${second}, line_no, account, currency, amount from journal_lines
      where journal_id = ${first}`.execute(database.db);
    await keepDayTotalsInStep(database.db);
    const report = await audit(LATER, 'last-clean');
    expect(report.mode).toBe('incremental');
    expect(checks(report)).toEqual(['duplicate_settlement']);
    expect(report.violations[0]!.ids).toMatchObject({
      resourceId: 'tr_3',
      journalIds: [String(first), String(second)],
    });
    // Only tr_3 was read: its mirror row and both journals.
    expect(report.counts).toMatchObject({ items: 1, journals: 2 });
  });

  it('finds inbox rows processed without a sync record: new ones, and an old one closed since', async () => {
    // Open at the baseline (so not judged then), processed after it.
    const oldOpen = await processedInboxRow('pi_1', null);
    // The baseline above ran before this row existed; run a new clean baseline with it open.
    const base = await audit('2026-03-02T00:30:00.000Z');
    expect(base.clean).toBe(true);
    await markProcessed(oldOpen, '2026-03-02T01:30:00.000Z');
    const fresh = await processedInboxRow('pi_1', '2026-03-02T01:30:00.000Z');
    const covered = await processedInboxRow('pi_3', '2026-03-02T01:30:00.000Z');
    await recordFetchCoverage(
      database.db,
      { kind: 'payment_intent', id: 'pi_3' },
      { upToInboxId: covered, fetchStartedAt: '2026-03-02T01:29:00.000Z' },
    );
    const report = await audit(LATER, 'last-clean');
    expect(report.scope?.basedOnRun?.id).toBe(base.recordedRun);
    expect(checks(report)).toEqual(['inbox_processed_uncovered', 'inbox_processed_uncovered']);
    expect(report.violations.map((v) => v.ids['inboxId'])).toEqual([
      String(oldOpen),
      String(fresh),
    ]);
    expect(report.counts.inboxProcessed).toBe(3);
  });

  it('does not see an old row altered with nothing since touching its item; the full audit does', async () => {
    await dropAppendOnlyTriggers(database.db);
    const id = await journalId(database.db, 'payment_intent', 'pi_1', 'settlement-1');
    await sql`update journal_lines set amount = 4000
      where journal_id = ${id} and account = 'service:collection'`.execute(database.db);
    await keepDayTotalsInStep(database.db);
    const incremental = await audit(LATER, 'last-clean');
    expect(incremental.clean).toBe(true);
    expect(incremental.counts).toMatchObject({ items: 0, journals: 0 });
    const full = await audit('2026-03-02T03:00:00.000Z');
    expect(full.mode).toBe('full');
    expect(checks(full)).toEqual(['unbalanced_journal']);
    expect(full.recordedRun).toBeNull();
  });

  it('checks the day totals of the days it touched; an older day is left to the full audit', async () => {
    await newSettledIntent('pi_9');
    const id = await journalId(database.db, 'payment_intent', 'pi_9', 'settlement-1');
    const touched = await sql<{ day: string }>`
      select substr(effective_at, 1, 10) as day from journals where id = ${id}`.execute(
      database.db,
    );
    const day = touched.rows[0]!.day;
    await sql`update ledger_day_totals set amount = amount + 7
      where day = ${day} and account = 'service:collection'`.execute(database.db);
    // A day no journal since the watermark touched: only the full audit reads it.
    await sql`insert into ledger_day_totals (day, account, currency, amount)
      values ('2020-01-01', 'income:payments', 'XOF', 5)`.execute(database.db);
    const report = await audit(LATER, 'last-clean');
    expect(report.mode).toBe('incremental');
    expect(checks(report)).toEqual(['day_total_mismatch']);
    expect(report.violations[0]!.ids).toMatchObject({ day, account: 'service:collection' });
    expect(report.skipped).toContainEqual(
      expect.stringMatching(/^day totals: only the 1 day\(s\)/),
    );
    const full = await audit('2026-03-02T03:00:00.000Z');
    expect(checks(full)).toEqual(['day_total_mismatch', 'day_total_mismatch']);
  });

  it('--since a time reads from that time, with ids from the last clean audit before it', async () => {
    await newSettledIntent('pi_9');
    const before = await audit(LATER, new Date('2026-03-01T00:00:00.000Z'));
    expect(before.scope).toMatchObject({
      from: '2026-03-01T00:00:00.000Z',
      journalIdAfter: 0,
      basedOnRun: null,
    });
    expect(before.counts).toMatchObject({ items: 8, journals: 8 });
    expect(before.clean).toBe(true);
    const after = await audit(LATER, new Date('2026-03-02T00:30:00.000Z'));
    expect(after.scope?.basedOnRun?.id).toBe(baseline.recordedRun);
    expect(after.counts).toMatchObject({ items: 1, journals: 1 });
  });

  it('--since last-clean with no clean audit on record runs the full audit and says so', async () => {
    await sql`delete from audit_runs`.execute(database.db);
    const report = await audit(LATER, 'last-clean');
    expect(report.mode).toBe('full');
    expect(report.range).toContain('found no clean audit on record');
    expect(report.counts).toMatchObject({ items: 7, journals: 7 });
    expect(report.recordedRun).toEqual(expect.any(Number));
  });
});
