import type { AuditViolation } from './audit-types.ts';
import { moneyOf, readMoney } from './money-text.ts';
import type { StoredBooks, StoredJournal, StoredLine } from './read-books.ts';

/** The mirror kinds whose journals are item settlements and reversals. */
export const ITEM_KINDS = ['payment_intent', 'transfer', 'refund', 'payment_refund'] as const;

const resourceOf = (j: StoredJournal) => `${j.resourceKind} ${j.resourceId}`;
/** Ids are decimal text without leading zeros: the shorter is smaller, else the text order. */
const byId = (a: StoredJournal, b: StoredJournal) =>
  a.id.length !== b.id.length ? a.id.length - b.id.length : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

/** Every journal sums to zero in each currency (exact integers, no rounding). */
export function checkBalanced(books: StoredBooks): AuditViolation[] {
  const violations: AuditViolation[] = [];
  for (const journal of books.journals.values()) {
    const sums = new Map<string, bigint>();
    for (const line of journal.lines) {
      sums.set(line.currency, (sums.get(line.currency) ?? 0n) + moneyOf(line.amountText));
    }
    const off = [...sums].filter(([, sum]) => sum !== 0n);
    if (off.length > 0 || journal.lines.length < 2) {
      const detail =
        off.map(([currency, sum]) => `${currency} sums to ${sum}`).join(', ') ||
        `${journal.lines.length} line(s), fewer than two`;
      violations.push({
        check: 'unbalanced_journal',
        message: `journal ${journal.id} (${resourceOf(journal)} ${journal.settlementKey}) does not balance: ${detail}`,
        ids: {
          journalId: journal.id,
          resourceKind: journal.resourceKind,
          resourceId: journal.resourceId,
        },
      });
    }
  }
  return violations;
}

/**
 * No (resource, settlement key) twice, and, walking a resource's journals in id order, never a
 * second settlement while one is still unreversed: either books the same money twice.
 */
export function checkDuplicateSettlements(books: StoredBooks): AuditViolation[] {
  const violations: AuditViolation[] = [];
  for (const journals of groupByResource(books).values()) {
    const keys = new Map<string, string>();
    for (const journal of journals) {
      const first = keys.get(journal.settlementKey);
      if (first !== undefined) {
        violations.push({
          check: 'duplicate_settlement',
          message: `${resourceOf(journal)} has two journals for ${journal.settlementKey}: ${first} and ${journal.id}`,
          ids: {
            resourceKind: journal.resourceKind,
            resourceId: journal.resourceId,
            journalIds: [first, journal.id],
          },
        });
      } else keys.set(journal.settlementKey, journal.id);
    }
    let active: StoredJournal | undefined;
    for (const journal of journals) {
      if (journal.entryType === 'settlement') {
        if (active && active.settlementKey !== journal.settlementKey) {
          violations.push({
            check: 'duplicate_settlement',
            message: `${resourceOf(journal)} settled twice: journal ${journal.id} (${journal.settlementKey}) while journal ${active.id} (${active.settlementKey}) was not reversed`,
            ids: {
              resourceKind: journal.resourceKind,
              resourceId: journal.resourceId,
              journalIds: [active.id, journal.id],
            },
          });
        }
        active = journal;
      } else if (journal.entryType === 'reversal') {
        active = undefined;
      }
    }
  }
  return violations;
}

/**
 * Every reversal names a settlement of the same resource, no settlement is reversed twice, and
 * a reversal's lines are its settlement's lines with opposite signs, line for line.
 */
export function checkReversals(books: StoredBooks): AuditViolation[] {
  const violations: AuditViolation[] = [];
  const reversedBy = new Map<string, string>();
  for (const journal of books.journals.values()) {
    if (journal.entryType !== 'reversal') continue;
    const ids = {
      journalId: journal.id,
      resourceKind: journal.resourceKind,
      resourceId: journal.resourceId,
      reversesJournalId: journal.reversesJournalId ?? '',
    };
    const dangling = (why: string) =>
      violations.push({
        check: 'dangling_reversal',
        message: `reversal journal ${journal.id} (${resourceOf(journal)} ${journal.settlementKey}) ${why}`,
        ids,
      });
    const target =
      journal.reversesJournalId === null
        ? undefined
        : books.journals.get(journal.reversesJournalId);
    if (journal.reversesJournalId === null) {
      dangling('points at no journal');
      continue;
    }
    if (!target) {
      dangling(`points at journal ${journal.reversesJournalId}, which does not exist`);
      continue;
    }
    if (resourceOf(target) !== resourceOf(journal)) {
      dangling(`points at journal ${target.id}, which belongs to ${resourceOf(target)}`);
      continue;
    }
    if (target.entryType !== 'settlement') {
      dangling(`points at journal ${target.id}, a ${target.entryType}, not a settlement`);
      continue;
    }
    const earlier = reversedBy.get(target.id);
    if (earlier !== undefined) {
      dangling(`reverses journal ${target.id}, already reversed by journal ${earlier}`);
      continue;
    }
    reversedBy.set(target.id, journal.id);
    const expected = lineKeys(target.lines, -1n);
    const actual = lineKeys(journal.lines, 1n);
    if (expected !== actual) {
      violations.push({
        check: 'reversal_mismatch',
        message: `reversal journal ${journal.id} does not negate journal ${target.id} of ${resourceOf(journal)} line for line: expected [${expected}], booked [${actual}]`,
        ids,
      });
    }
  }
  return violations;
}

/**
 * Each mirrored item's journals match its status: a `successful` item has one settlement more
 * than reversals; any other status as many reversals as settlements (none, or each undone).
 * Counts beyond one unreversed settlement are `duplicate_settlement`'s to report, so one fault
 * gives one violation. Journals of an item the mirror does not hold are reported too.
 */
export function checkItemBookings(books: StoredBooks): AuditViolation[] {
  const violations: AuditViolation[] = [];
  const groups = groupByResource(books);
  const mirrored = new Set<string>();
  for (const item of books.items) {
    const key = `${item.kind} ${item.id}`;
    mirrored.add(key);
    const journals = groups.get(key) ?? [];
    const settlements = journals.filter((j) => j.entryType === 'settlement');
    const reversals = journals.filter((j) => j.entryType === 'reversal').length;
    const net = settlements.length - reversals;
    const ids = {
      resourceKind: item.kind,
      resourceId: item.id,
      status: item.status,
      journalIds: journals.map((j) => j.id),
    };
    if (item.status === 'successful' && net < 1) {
      violations.push({
        check: 'settled_item_unbooked',
        message: `${key} is successful but has no unreversed settlement (${settlements.length} settlement(s), ${reversals} reversal(s))`,
        ids,
      });
    } else if (item.status !== 'successful' && net > 0) {
      violations.push({
        check: 'unsettled_item_booked',
        message: `${key} is ${item.status} but settlement journal ${settlements.at(-1)!.id} (${settlements.at(-1)!.settlementKey}) is not reversed`,
        ids,
      });
    }
  }
  for (const [key, journals] of groups) {
    if (mirrored.has(key)) continue;
    violations.push({
      check: 'journal_without_item',
      message: `${key} has journal(s) ${journals.map((j) => j.id).join(', ')} but no mirror row`,
      ids: {
        resourceKind: journals[0]!.resourceKind,
        resourceId: journals[0]!.resourceId,
        journalIds: journals.map((j) => j.id),
      },
    });
  }
  return violations;
}

/** Every stored amount is an integer JavaScript holds exactly. */
export function checkSafeIntegers(books: StoredBooks): AuditViolation[] {
  const violations: AuditViolation[] = [];
  const unsafe = (text: string) => !readMoney(text).safe;
  for (const journal of books.journals.values()) {
    for (const line of journal.lines) {
      if (!unsafe(line.amountText)) continue;
      violations.push({
        check: 'unsafe_integer',
        message: `journal ${journal.id} (${resourceOf(journal)}) line ${line.lineNo} on ${line.account}: amount ${line.amountText} is not a safe integer`,
        ids: { table: 'journal_lines', journalId: journal.id, lineNo: line.lineNo },
      });
    }
  }
  for (const item of books.items) {
    if (!unsafe(item.amountText)) continue;
    violations.push({
      check: 'unsafe_integer',
      message: `${item.kind} ${item.id}: amount ${item.amountText} is not a safe integer`,
      ids: { table: 'mirror', resourceKind: item.kind, resourceId: item.id },
    });
  }
  for (const other of books.otherAmounts) {
    if (!unsafe(other.amountText)) continue;
    violations.push({
      check: 'unsafe_integer',
      message: `${other.table} ${other.id}: amount ${other.amountText} is not a safe integer`,
      ids: { table: other.table, id: other.id },
    });
  }
  return violations;
}

const grouped = new WeakMap<StoredBooks, Map<string, StoredJournal[]>>();

/** Item journals (settlements and reversals) by resource, in id order; built once per books. */
function groupByResource(books: StoredBooks): Map<string, StoredJournal[]> {
  const known = grouped.get(books);
  if (known) return known;
  const groups = new Map<string, StoredJournal[]>();
  for (const journal of books.journals.values()) {
    if (journal.entryType !== 'settlement' && journal.entryType !== 'reversal') continue;
    const key = resourceOf(journal);
    const list = groups.get(key);
    if (list) list.push(journal);
    else groups.set(key, [journal]);
  }
  for (const list of groups.values()) list.sort(byId);
  grouped.set(books, groups);
  return groups;
}

function lineKeys(lines: readonly StoredLine[], sign: bigint): string {
  return lines
    .map((l) => `${l.account} ${l.currency} ${moneyOf(l.amountText) * sign}`)
    .sort()
    .join('; ');
}
