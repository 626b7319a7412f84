import type { Kysely } from 'kysely';
import type { Database } from '../db/index.ts';
import type { AuditReport, AuditScopeReport, AuditViolation } from './audit-types.ts';
import { lastCleanAudit, readWatermark, recordCleanAudit } from './audit-runs.ts';
import {
  checkBalanced,
  checkDuplicateSettlements,
  checkItemBookings,
  checkReversals,
  checkSafeIntegers,
} from './check-books.ts';
import { checkInboxCoverage, checkOutbox, tableExists } from './check-sync-records.ts';
import { checkDayTotals } from './check-day-totals.ts';
import { compareWithTruth } from './compare-truth.ts';
import { parseGroundTruth, type GroundTruthInput } from './ground-truth.ts';
import { readBooks, type StoredBooks } from './read-books.ts';
import { readChangedBooks } from './read-changed-books.ts';

/** Where an incremental audit starts: the latest clean audit's watermark, or a time. */
export type AuditSince = 'last-clean' | Date;

export interface AuditOptions {
  /** The simulator's ground truth; without it only the books' own consistency is checked. */
  readonly truth?: GroundTruthInput;
  /** Which of the truth's modes the books hold (`PAYSYNC_ENVIRONMENT`). @defaultValue `sandbox` */
  readonly mode?: string;
  /**
   * An outbox row waiting, or dispatched and not consumed, for longer than this (ms) is lost.
   * @defaultValue 10 minutes
   */
  readonly outboxStaleMs?: number;
  /**
   * Check only what changed since then (docs/audit.md, "Incremental audit"). `last-clean`
   * without a clean audit on record runs the full audit. Not with `truth` (a comparison of
   * balances is global). @defaultValue the full audit
   */
  readonly since?: AuditSince;
  /**
   * How far before the last clean audit's start `--since last-clean` reads mirror rows and
   * processed inbox rows: longer than any sync takes from its fetch to its commit, so a
   * transaction still open when that audit read the books is seen by the next one.
   * @defaultValue 10 minutes
   */
  readonly overlapMs?: number;
  /** Record a clean audit's watermark in `audit_runs` (the CLI does). @defaultValue false */
  readonly record?: boolean;
  /** The clock, resolved where the process is assembled. */
  readonly now: () => Date;
}

const DEFAULTS = {
  mode: 'sandbox',
  outboxStaleMs: 10 * 60_000,
  overlapMs: 10 * 60_000,
  record: false,
} satisfies Required<Omit<AuditOptions, 'truth' | 'now' | 'since'>>;

/**
 * Judges the books from first principles: reads the tables with its own queries and checks
 * every invariant of docs/audit.md, then, given the simulator's truth, compares statuses,
 * money and balances. With `since`, only the items, journals and inbox rows that changed
 * since a watermark. Writes nothing but its own record of a clean run, when asked (`record`).
 */
export async function runAudit(db: Kysely<Database>, options: AuditOptions): Promise<AuditReport> {
  const { mode, outboxStaleMs, overlapMs, record, now } = { ...DEFAULTS, ...options };
  if (options.since !== undefined && options.truth) {
    throw new Error(
      'an incremental audit (since) cannot compare with a ground truth: run the full audit',
    );
  }
  const started = performance.now();
  const auditedAt = now();
  // Read before the books: every row up to these ids is in what this audit reads next.
  const watermark = await readWatermark(db, auditedAt);
  const runsTable = await tableExists(db, 'audit_runs');
  const skipped: string[] = [];

  let scope: AuditScopeReport | null = null;
  let range = 'every row';
  if (options.since !== undefined) {
    const since = options.since;
    const base = runsTable
      ? await lastCleanAudit(db, since === 'last-clean' ? undefined : since)
      : undefined;
    if (since === 'last-clean' && !base) {
      range = `every row (--since last-clean found no clean audit on record${runsTable ? '' : '; no audit_runs table: run paysync migrate'})`;
    } else {
      const from =
        since === 'last-clean'
          ? new Date(Date.parse(base!.started_at) - overlapMs).toISOString()
          : since.toISOString();
      scope = {
        from,
        journalIdAfter: base ? Number(base.max_journal_id) : 0,
        inboxIdAfter: base ? Number(base.max_inbox_id) : 0,
        basedOnRun: base ? { id: Number(base.id), startedAt: base.started_at } : null,
      };
      range =
        `changes since ${from}${base ? ` (clean audit ${base.id} of ${base.started_at})` : ' (no clean audit on record before it: journals and inbox rows from the first)'}: ` +
        `items synced since then or with journals after id ${scope.journalIdAfter}, ` +
        `inbox rows after id ${scope.inboxIdAfter} or processed since then`;
      skipped.push(
        'balance snapshots: their amounts are checked by the full audit only',
        'rows before the watermark that nothing since has touched: the full audit reads them (docs/audit.md, "What --since does not see")',
      );
    }
  }

  const books: StoredBooks = scope ? await readChangedBooks(db, scope) : await readBooks(db);
  const violations: AuditViolation[] = [
    ...checkBalanced(books),
    ...checkDuplicateSettlements(books),
    ...checkReversals(books),
    ...checkItemBookings(books),
    ...checkSafeIntegers(books),
  ];
  if (await tableExists(db, 'ledger_day_totals')) {
    const dayTotals = await checkDayTotals(db, books, scope ?? undefined);
    violations.push(...dayTotals.violations);
    if (scope) {
      skipped.push(
        `day totals: only the ${dayTotals.days} day(s) of the journals posted since the watermark were checked; the full audit checks every day`,
      );
    }
  } else {
    skipped.push('day totals: the table does not exist (before migration 0014)');
  }
  const inbox = await checkInboxCoverage(db, scope ?? undefined);
  violations.push(...inbox.violations);
  if (inbox.unjudged > 0) {
    skipped.push(
      `inbox: ${inbox.unjudged} processed row(s) name no resource (events about nothing in the books need no sync), so there is no coverage to judge`,
    );
  }
  const outbox = await checkOutbox(db, auditedAt, outboxStaleMs, scope ?? undefined);
  if (outbox) violations.push(...outbox.violations);
  else skipped.push('outbox: the table does not exist (before migration 0008)');
  let truthItems: number | undefined;
  let movements: number | undefined;
  if (options.truth) {
    const compared = compareWithTruth(books, parseGroundTruth(options.truth), mode);
    violations.push(...compared.violations);
    truthItems = compared.items;
    movements = compared.movements;
  } else {
    skipped.push(
      'ground truth: none given (--truth), so statuses, movements and balances were not compared',
    );
  }
  const clean = violations.length === 0;
  let recordedRun: number | null = null;
  if (record && clean && runsTable) {
    recordedRun = await recordCleanAudit(db, {
      mode: scope ? 'incremental' : 'full',
      watermark,
      finishedAt: now(),
      scopeFrom: scope?.from ?? null,
      items: books.items.length,
      journals: books.journals.size,
    });
  }
  return {
    clean,
    mode: scope ? 'incremental' : 'full',
    range,
    scope,
    watermark,
    recordedRun,
    auditedAt: auditedAt.toISOString(),
    durationMs: Math.round(performance.now() - started),
    counts: {
      journals: books.journals.size,
      lines: books.lineCount,
      items: books.items.length,
      inboxProcessed: inbox.processed,
      outbox: outbox?.rows,
      truthItems,
      movements,
    },
    violations,
    skipped,
  };
}
