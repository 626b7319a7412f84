import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/index.ts';
import type { AuditScope, AuditViolation } from './audit-types.ts';
import { moneyOf } from './money-text.ts';
import type { StoredBooks } from './read-books.ts';

/** (day, account, currency) as one map key. */
const keyOf = (day: string, account: string, currency: string) =>
  `${day}\u0000${account}\u0000${currency}`;

/** Per (day, account, currency), the exact sum of the lines of every journal in `books`. */
function lineSums(books: StoredBooks): Map<string, bigint> {
  const sums = new Map<string, bigint>();
  for (const journal of books.journals.values()) {
    for (const line of journal.lines) {
      const key = keyOf(journal.day, line.account, line.currency);
      sums.set(key, (sums.get(key) ?? 0n) + moneyOf(line.amountText));
    }
  }
  return sums;
}

/** The next UTC date after `day` (`YYYY-MM-DD`). */
function nextDay(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00.000Z`) + 86_400_000).toISOString().slice(0, 10);
}

/**
 * Per (day, account, currency), the sum of the lines of the journals effective on `days`, read
 * with the auditor's own query (a range of `journals.effective_at` per day).
 */
async function lineSumsOfDays(
  db: Kysely<Database>,
  days: readonly string[],
): Promise<Map<string, bigint>> {
  const sums = new Map<string, bigint>();
  for (const day of days) {
    const rows = await sql<{ account: string; currency: string; amount: string }>`
      select l.account, l.currency, cast(sum(l.amount) as text) as amount
      from journals j join journal_lines l on l.journal_id = j.id
      where j.effective_at >= ${day} and j.effective_at < ${nextDay(day)}
      group by l.account, l.currency`.execute(db);
    for (const row of rows.rows)
      sums.set(keyOf(day, row.account, row.currency), BigInt(row.amount));
  }
  return sums;
}

/** The stored day totals (of `days` only, when given), amounts as text. */
async function storedTotals(
  db: Kysely<Database>,
  days?: readonly string[],
): Promise<Map<string, { day: string; account: string; currency: string; amount: string }>> {
  const stored = new Map<
    string,
    { day: string; account: string; currency: string; amount: string }
  >();
  if (days?.length === 0) return stored;
  const rows = await sql<{ day: string; account: string; currency: string; amount: string }>`
    select day, account, currency, cast(amount as text) as amount from ledger_day_totals
    ${days ? sql`where day in (${sql.join(days.map((d) => sql`${d}`))})` : sql``}`.execute(db);
  for (const row of rows.rows) stored.set(keyOf(row.day, row.account, row.currency), row);
  return stored;
}

/**
 * The ledger's day totals (migration 0014) equal the sums of the lines they cache, both ways:
 * every stored total has lines summing to it, and every (day, account, currency) with lines has
 * its total. The full audit sums the lines it has already read; an incremental one checks the
 * days of the journals posted since the watermark, with one grouped read per day.
 */
export async function checkDayTotals(
  db: Kysely<Database>,
  books: StoredBooks,
  scope?: AuditScope,
): Promise<{ violations: AuditViolation[]; days: number }> {
  let sums: Map<string, bigint>;
  let stored: Awaited<ReturnType<typeof storedTotals>>;
  if (scope) {
    const touched = await sql<{ day: string }>`
      select distinct substr(effective_at, 1, 10) as day from journals
      where id > ${scope.journalIdAfter}`.execute(db);
    const days = touched.rows.map((row) => row.day).sort();
    sums = await lineSumsOfDays(db, days);
    stored = await storedTotals(db, days);
  } else {
    sums = lineSums(books);
    stored = await storedTotals(db);
  }
  const violations: AuditViolation[] = [];
  const days = new Set<string>();
  for (const [key, row] of stored) {
    days.add(row.day);
    const sum = sums.get(key);
    const amount = moneyOf(row.amount);
    if (sum === amount) continue;
    violations.push({
      check: 'day_total_mismatch',
      message:
        sum === undefined
          ? `day total ${row.day} ${row.account} ${row.currency} is ${row.amount}, but no journal line of that day books it`
          : `day total ${row.day} ${row.account} ${row.currency} is ${row.amount}, but the day's journal lines sum to ${sum}`,
      ids: { day: row.day, account: row.account, currency: row.currency },
    });
  }
  for (const [key, sum] of sums) {
    if (stored.has(key)) continue;
    const [day, account, currency] = key.split('\u0000') as [string, string, string];
    days.add(day);
    violations.push({
      check: 'day_total_mismatch',
      message: `journal lines of ${day} on ${account} ${currency} sum to ${sum}, but there is no day total`,
      ids: { day, account, currency },
    });
  }
  return { violations, days: days.size };
}
