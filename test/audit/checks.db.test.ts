import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAudit, type AuditReport, type GroundTruth } from '../../src/audit/index.ts';
import { insertInboxEvent } from '../../src/inbox/index.ts';
import { recordInboxResource } from '../../src/inbox/index.ts';
import { recordFetchCoverage } from '../../src/ledger/index.ts';
import { freshDatabase, testDialect, type TestDatabase } from '../support/test-database.ts';
import {
  cleanTruth,
  dropAppendOnlyTriggers,
  journalId,
  keepDayTotalsInStep,
  writeCleanBooks,
} from './support/audit-books.ts';

/**
 * Acceptance 1 of issue 14: one test per check. Each breaks correct books (written by the real
 * ledger) in exactly one way, and the auditor must report exactly that violation, naming the
 * ids involved.
 */
describe(`paysync audit checks on ${testDialect()}`, () => {
  let database: TestDatabase;

  beforeEach(async () => {
    database = await freshDatabase();
    await writeCleanBooks(database.db);
  });

  afterEach(async () => {
    await database.cleanup();
  });

  const audit = (truth?: GroundTruth) =>
    runAudit(database.db, {
      now: () => new Date(),
      ...(truth ? { truth, mode: 'sandbox' } : {}),
    });
  const checks = (report: AuditReport) => report.violations.map((v) => v.check);

  it('finds nothing wrong with correct books, with or without the truth', async () => {
    const alone = await audit();
    expect(alone.violations).toEqual([]);
    expect(alone.clean).toBe(true);
    expect(alone.skipped.join('\n')).not.toContain('day totals');
    expect(alone.counts).toMatchObject({ journals: 7, items: 7 });
    const withTruth = await audit(cleanTruth());
    expect(withTruth.violations).toEqual([]);
    expect(withTruth.counts).toMatchObject({ truthItems: 7, movements: 7 });
  });

  it('an unbalanced journal', async () => {
    await dropAppendOnlyTriggers(database.db);
    const id = await journalId(database.db, 'payment_intent', 'pi_1', 'settlement-1');
    await sql`update journal_lines set amount = 4000
      where journal_id = ${id} and account = 'service:collection'`.execute(database.db);
    await keepDayTotalsInStep(database.db);
    const report = await audit();
    expect(checks(report)).toEqual(['unbalanced_journal']);
    expect(report.violations[0]!.ids).toMatchObject({ journalId: String(id), resourceId: 'pi_1' });
    expect(report.violations[0]!.message).toContain('XOF sums to -1000');
  });

  it('a duplicate settlement', async () => {
    const first = await journalId(database.db, 'transfer', 'tr_3', 'settlement-1');
    await sql`insert into journals (resource_kind, resource_id, settlement_key, entry_type,
        description, effective_at, posted_at, via)
      values ('transfer', 'tr_3', 'settlement-2', 'settlement', 'again', ${'2026-03-01T10:00:05.000Z'},
        ${'2026-03-01T10:00:05.000Z'}, 'webhook')`.execute(database.db);
    const second = await journalId(database.db, 'transfer', 'tr_3', 'settlement-2');
    await sql`insert into journal_lines (journal_id, line_no, account, currency, amount)
      select ${second}, line_no, account, currency, amount from journal_lines
      where journal_id = ${first}`.execute(database.db);
    await keepDayTotalsInStep(database.db);
    const report = await audit();
    expect(checks(report)).toEqual(['duplicate_settlement']);
    expect(report.violations[0]!.ids).toMatchObject({
      resourceId: 'tr_3',
      journalIds: [String(first), String(second)],
    });
  });

  it('a dangling reversal (pointing at another resource’s settlement)', async () => {
    await dropAppendOnlyTriggers(database.db);
    const reversal = await journalId(database.db, 'transfer', 'tr_2', 'reversal-1');
    const other = await journalId(database.db, 'transfer', 'tr_3', 'settlement-1');
    await sql`update journals set reverses_journal_id = ${other} where id = ${reversal}`.execute(
      database.db,
    );
    const report = await audit();
    expect(checks(report)).toEqual(['dangling_reversal']);
    expect(report.violations[0]!.ids).toMatchObject({
      journalId: String(reversal),
      reversesJournalId: String(other),
    });
    expect(report.violations[0]!.message).toContain('belongs to transfer tr_3');
  });

  it('a reversal that does not negate its settlement', async () => {
    await dropAppendOnlyTriggers(database.db);
    const reversal = await journalId(database.db, 'transfer', 'tr_2', 'reversal-1');
    // Still balanced (every line doubled), but no longer the settlement's lines negated.
    await sql`update journal_lines set amount = amount * 2 where journal_id = ${reversal}`.execute(
      database.db,
    );
    await keepDayTotalsInStep(database.db);
    const report = await audit();
    expect(checks(report)).toEqual(['reversal_mismatch']);
    expect(report.violations[0]!.ids).toMatchObject({ journalId: String(reversal) });
  });

  it('a settled item without its settlement journal', async () => {
    await sql`update payment_intents set status = 'successful' where id = 'pi_3'`.execute(
      database.db,
    );
    const report = await audit();
    expect(checks(report)).toEqual(['settled_item_unbooked']);
    expect(report.violations[0]!.ids).toMatchObject({ resourceId: 'pi_3', journalIds: [] });
  });

  it('a failed item with a settlement and no reversal', async () => {
    await sql`update transfers set status = 'failed' where id = 'tr_3'`.execute(database.db);
    const report = await audit();
    expect(checks(report)).toEqual(['unsettled_item_booked']);
    expect(report.violations[0]!.ids).toMatchObject({ resourceId: 'tr_3', status: 'failed' });
  });

  it('an inbox row processed without a sync that started after it arrived', async () => {
    const processedRow = async (kind: 'payment_intent', id: string) => {
      const { inboxId } = await insertInboxEvent(database.db, {
        receivedAt: new Date(),
        dedupeKey: `evt-${id}-${Math.random()}`,
        eventId: undefined,
        eventType: undefined,
        rawBody: Buffer.from('{}'),
        headers: {},
      });
      await recordInboxResource(database.db, inboxId, { kind, id });
      await database.db
        .updateTable('webhook_inbox')
        .set({ status: 'processed', processed_at: '2026-03-01T11:00:00.000Z' })
        .where('id', '=', inboxId)
        .execute();
      return inboxId;
    };
    const covered = await processedRow('payment_intent', 'pi_3');
    await recordFetchCoverage(
      database.db,
      { kind: 'payment_intent', id: 'pi_3' },
      { upToInboxId: covered, fetchStartedAt: '2026-03-01T10:59:00.000Z' },
    );
    // pi_1's last sync began before this row arrived: it covered ids up to `covered` only.
    await recordFetchCoverage(
      database.db,
      { kind: 'payment_intent', id: 'pi_1' },
      { upToInboxId: covered, fetchStartedAt: '2026-03-01T10:59:00.000Z' },
    );
    const uncovered = await processedRow('payment_intent', 'pi_1');
    const report = await audit();
    expect(checks(report)).toEqual(['inbox_processed_uncovered']);
    expect(report.violations[0]!.ids).toMatchObject({
      inboxId: String(uncovered),
      resourceId: 'pi_1',
    });
    expect(report.violations[0]!.message).toContain(`covered inbox ids up to ${covered}`);
  });

  it('an unsafe integer', async () => {
    await dropAppendOnlyTriggers(database.db);
    const id = await journalId(database.db, 'payment_intent', 'pi_1', 'settlement-1');
    // Balanced in exact arithmetic, but 2^53 + 1 cannot be held by a JavaScript number.
    await sql`update journal_lines set amount = case when amount > 0
        then 9007199254740993 else -9007199254740993 end
      where journal_id = ${id}`.execute(database.db);
    await keepDayTotalsInStep(database.db);
    const report = await audit();
    expect(checks(report)).toEqual(['unsafe_integer', 'unsafe_integer']);
    expect(report.violations[0]!.message).toContain('9007199254740993');
    expect(report.violations[0]!.ids).toMatchObject({ journalId: String(id) });
  });

  it('a day total differing from its journal lines, both ways', async () => {
    const totals = await sql<{ day: string; account: string; currency: string }>`
      select day, account, currency from ledger_day_totals
      order by day, account, currency`.execute(database.db);
    const [changed, removed] = totals.rows as [(typeof totals.rows)[0], (typeof totals.rows)[0]];
    await sql`update ledger_day_totals set amount = amount + 1 where day = ${changed.day}
      and account = ${changed.account} and currency = ${changed.currency}`.execute(database.db);
    await sql`delete from ledger_day_totals where day = ${removed.day}
      and account = ${removed.account} and currency = ${removed.currency}`.execute(database.db);
    await sql`insert into ledger_day_totals (day, account, currency, amount)
      values ('2020-01-01', 'income:payments', 'XOF', 5)`.execute(database.db);
    const report = await audit();
    expect(report.clean).toBe(false);
    expect(checks(report)).toEqual([
      'day_total_mismatch',
      'day_total_mismatch',
      'day_total_mismatch',
    ]);
    const messages = report.violations.map((v) => v.message);
    expect(messages).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^day total ${changed.day} ${changed.account} ${changed.currency} is -?\\d+, but the day's journal lines sum to -?\\d+$`,
        ),
      ),
    );
    expect(messages).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^journal lines of ${removed.day} on ${removed.account} ${removed.currency} sum to -?\\d+, but there is no day total$`,
        ),
      ),
    );
    expect(messages).toContainEqual(
      'day total 2020-01-01 income:payments XOF is 5, but no journal line of that day books it',
    );
    expect(report.violations.map((v) => v.ids)).toContainEqual({
      day: '2020-01-01',
      account: 'income:payments',
      currency: 'XOF',
    });
  });

  it("an item's status differing from the truth", async () => {
    const truth = cleanTruth();
    truth.items.find((i) => i.id === 'pi_3')!.status = 'failed';
    const report = await audit(truth);
    expect(checks(report)).toEqual(['status_mismatch']);
    expect(report.violations[0]!.message).toBe(
      'payment_intent pi_3: mirror says processing, the service failed',
    );
  });

  it('a money movement differing from the truth, per item and per account', async () => {
    const truth = cleanTruth();
    const movement = truth.movements.find((m) => m.id === 'mv_2')!;
    truth.movements[truth.movements.indexOf(movement)] = { ...movement, amount: -9000 };
    const report = await audit(truth);
    expect(checks(report)).toEqual(['movement_mismatch', 'movement_mismatch']);
    expect(report.violations.map((v) => v.ids)).toEqual([
      { scope: 'item', resourceKind: 'transfer', resourceId: 'tr_1' },
      { scope: 'account', account: 'service:transfer XOF' },
    ]);
  });

  it('a final balance differing from the truth', async () => {
    const truth = cleanTruth();
    truth.balances.sandbox![0]!.amount = 3500;
    const report = await audit(truth);
    expect(checks(report)).toEqual(['balance_mismatch']);
    expect(report.violations[0]!.message).toBe(
      'service:collection XOF: the service holds 3500, the ledger 3000 (difference 500)',
    );
  });

  it('an item the service has that the mirror lost', async () => {
    const truth = cleanTruth();
    truth.items.push({ kind: 'transfer', id: 'tr_9', mode: 'sandbox', status: 'failed' });
    const report = await audit(truth);
    expect(checks(report)).toEqual(['item_missing']);
  });

  it('an outbox row never dispatched, once the outbox table exists', async () => {
    const before = await audit();
    const exists = before.counts.outbox !== undefined;
    if (!exists) {
      expect(before.skipped.join('\n')).toContain('outbox: the table does not exist');
      // The shape of migration 0008, created here so the check is proven before it lands.
      await sql`create table outbox (id integer primary key, kind text not null,
        dedupe_key text unique, payload text not null, created_at text not null,
        available_at text not null, dispatched_at text, consumed_at text,
        dispatch_attempts integer not null default 0, last_error text)`.execute(database.db);
    }
    await sql`insert into outbox (id, kind, payload, created_at, available_at, dispatched_at, consumed_at)
      values (901, 'alert', '{}', '2026-03-01T10:00:00.000Z', '2026-03-01T10:00:00.000Z', null, null),
        (902, 'alert', '{}', '2026-03-01T10:00:00.000Z', '2026-03-01T10:00:00.000Z',
          '2026-03-01T10:00:01.000Z', '2026-03-01T10:00:02.000Z')`.execute(database.db);
    const report = await runAudit(database.db, { now: () => new Date('2026-03-01T11:00:00.000Z') });
    expect(checks(report)).toEqual(['outbox_stalled']);
    expect(report.violations[0]!.ids).toMatchObject({ outboxId: '901' });
    expect(report.counts.outbox).toBe(2);
  });

  it('the incremental audit finds the outbox rows that are wrong now or went wrong since its watermark, reading index ranges only', async () => {
    // 901 waits, never dispatched (stalled); 903 was consumed and never dispatched; 904 and 905
    // were dispatched before they were created, 904 after the watermark, 905 before it.
    await sql`insert into outbox (id, kind, payload, created_at, available_at, dispatched_at, consumed_at)
      values (901, 'alert', '{}', '2026-03-01T10:00:00.000Z', '2026-03-01T10:00:00.000Z', null, null),
        (903, 'receipt', '{}', '2026-03-01T10:00:00.000Z', '2026-03-01T10:00:00.000Z',
          null, '2026-03-01T10:00:02.000Z'),
        (904, 'receipt', '{}', '2026-03-01T10:30:00.000Z', '2026-03-01T10:30:00.000Z',
          '2026-03-01T10:29:00.000Z', '2026-03-01T10:31:00.000Z'),
        (905, 'receipt', '{}', '2026-02-01T10:00:00.000Z', '2026-02-01T10:00:00.000Z',
          '2026-02-01T09:59:00.000Z', '2026-02-01T10:01:00.000Z')`.execute(database.db);
    const now = () => new Date('2026-03-01T11:00:00.000Z');
    const incremental = await runAudit(database.db, {
      now,
      since: new Date('2026-03-01T00:00:00.000Z'),
    });
    const outboxIds = (report: typeof incremental) =>
      report.violations
        .filter((v) => v.check.startsWith('outbox_'))
        .map((v) => [v.check, v.ids.outboxId]);
    expect(outboxIds(incremental)).toEqual([
      ['outbox_stalled', '901'],
      ['outbox_inconsistent', '903'],
      ['outbox_inconsistent', '904'],
    ]);
    const full = await runAudit(database.db, { now });
    expect(outboxIds(full)).toEqual([
      ['outbox_stalled', '901'],
      ['outbox_inconsistent', '903'],
      ['outbox_inconsistent', '904'],
      ['outbox_inconsistent', '905'],
    ]);
    await sql`delete from outbox where id in (901, 903, 904, 905)`.execute(database.db);
  });
});
