import type { Kysely } from 'kysely';
import type { Database } from '../db/index.ts';
import type { AuditReport, AuditViolation } from './audit-types.ts';
import {
  checkBalanced,
  checkDuplicateSettlements,
  checkItemBookings,
  checkReversals,
  checkSafeIntegers,
} from './check-books.ts';
import { checkInboxCoverage, checkOutbox } from './check-sync-records.ts';
import { compareWithTruth } from './compare-truth.ts';
import { parseGroundTruth, type GroundTruthInput } from './ground-truth.ts';
import { readBooks } from './read-books.ts';

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
  /** The clock, resolved where the process is assembled. */
  readonly now: () => Date;
}

const DEFAULTS = {
  mode: 'sandbox',
  outboxStaleMs: 10 * 60_000,
} satisfies Required<Omit<AuditOptions, 'truth' | 'now'>>;

/**
 * Judges the books from first principles: reads the tables with its own queries and checks
 * every invariant of docs/audit.md, then, given the simulator's truth, compares statuses,
 * money and balances. Read-only: it writes nothing.
 */
export async function runAudit(db: Kysely<Database>, options: AuditOptions): Promise<AuditReport> {
  const { mode, outboxStaleMs, now } = { ...DEFAULTS, ...options };
  const started = performance.now();
  const auditedAt = now();
  const books = await readBooks(db);
  const violations: AuditViolation[] = [
    ...checkBalanced(books),
    ...checkDuplicateSettlements(books),
    ...checkReversals(books),
    ...checkItemBookings(books),
    ...checkSafeIntegers(books),
  ];
  const skipped: string[] = [
    'cached totals: the schema keeps no cached account totals (balances are always summed from journal lines), so there is nothing to compare',
  ];
  const inbox = await checkInboxCoverage(db);
  violations.push(...inbox.violations);
  if (inbox.unjudged > 0) {
    skipped.push(
      `inbox: ${inbox.unjudged} processed row(s) name no resource (events about nothing in the books need no sync), so there is no coverage to judge`,
    );
  }
  const outbox = await checkOutbox(db, auditedAt, outboxStaleMs);
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
  return {
    clean: violations.length === 0,
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
