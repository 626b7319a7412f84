import type { Kysely } from 'kysely';
import type { Database } from '../db/index.ts';
import { SERVICE_ACCOUNTS, type ServiceAccountType } from '../ledger/index.ts';
import { dayOf, dayWindow, nextDay } from '../books-calendar/index.ts';
import type { ExportWindow } from './export-line.ts';

export interface AccountAmount {
  readonly account: string;
  readonly currency: string;
  readonly amount: number;
}

/**
 * What the plain-text formats declare before the first transaction: accounts, commodities,
 * the balances carried into the window, and the service's end-of-day balances per books day.
 * Small aggregates: one row per account and currency, not per line.
 */
export interface LedgerContext {
  readonly accounts: readonly string[];
  readonly currencies: readonly string[];
  /** Per account and currency, the sum of lines effective before the window (zeros left out). */
  readonly carriedForward: readonly AccountAmount[];
  /** Every books day the window covers, in order. */
  readonly days: readonly string[];
  /** Per books day, the service's balances at its end (`service:*` accounts) where snapshotted. */
  readonly endOfDay: ReadonlyMap<string, readonly AccountAmount[]>;
  /** Journals of the window that are late changes to a closed period. */
  readonly lateChanges: readonly LateChange[];
}

export interface LateChange {
  readonly journalId: number;
  readonly period: string;
  readonly originalEffectiveAt: string;
  readonly reverses: number | null;
  /** The ledger's entry type of the late journal (`reversal`, `settlement`, …). */
  readonly entryType: string;
  readonly description: string;
}

/** One line of the "late changes to closed periods" list. */
export function lateChangeText(c: LateChange): string {
  const of = c.reverses === null ? '' : ` of journal ${c.reverses}`;
  return `journal ${c.journalId}: adjustment${of} (late ${c.entryType}) to closed period ${c.period}, effective ${c.originalEffectiveAt}`;
}

export async function loadLedgerContext(
  db: Kysely<Database>,
  options: { window: ExportWindow; timeZone: string; environment: string },
): Promise<LedgerContext> {
  const { window, timeZone, environment } = options;
  const before = await db
    .selectFrom('journal_lines as l')
    .innerJoin('journals as j', 'j.id', 'l.journal_id')
    .select(['l.account', 'l.currency', (eb) => eb.fn.sum<number>('l.amount').as('amount')])
    .where('j.effective_at', '<', window.from)
    .groupBy(['l.account', 'l.currency'])
    .execute();
  const inside = await db
    .selectFrom('journal_lines as l')
    .innerJoin('journals as j', 'j.id', 'l.journal_id')
    .select(['l.account', 'l.currency'])
    .distinct()
    .where('j.effective_at', '>=', window.from)
    .where('j.effective_at', '<', window.to)
    .execute();
  const carriedForward = before
    .map((r) => ({ account: r.account, currency: r.currency, amount: Number(r.amount) }))
    .filter((r) => r.amount !== 0)
    .sort((a, b) => a.account.localeCompare(b.account) || a.currency.localeCompare(b.currency));

  const days: string[] = [];
  if (window.from < window.to) {
    const last = dayOf(new Date(Date.parse(window.to) - 1), timeZone);
    for (let day = dayOf(new Date(window.from), timeZone); day <= last; day = nextDay(day)) {
      days.push(day);
    }
  }
  const ends = new Map(days.map((day) => [dayWindow(day, timeZone).to, day]));
  const snapshots =
    days.length === 0
      ? []
      : await db
          .selectFrom('balance_snapshots')
          .select(['account_type', 'currency', 'amount', 'as_of'])
          .where('environment', '=', environment)
          .where('as_of', 'in', [...ends.keys()])
          .orderBy('as_of')
          .orderBy('account_type')
          .orderBy('currency')
          .execute();
  const endOfDay = new Map<string, AccountAmount[]>();
  for (const s of snapshots) {
    const account = SERVICE_ACCOUNTS[s.account_type as ServiceAccountType];
    const day = ends.get(s.as_of);
    if (!account || !day) continue;
    const list = endOfDay.get(day) ?? [];
    list.push({ account, currency: s.currency, amount: Number(s.amount) });
    endOfDay.set(day, list);
  }

  const late = await db
    .selectFrom('late_changes as lc')
    .innerJoin('journals as j', 'j.id', 'lc.journal_id')
    .select([
      'j.id',
      'lc.closed_period',
      'lc.original_effective_at',
      'j.reverses_journal_id',
      'j.entry_type',
      'j.description',
    ])
    .where('j.effective_at', '>=', window.from)
    .where('j.effective_at', '<', window.to)
    .orderBy('j.id')
    .execute();
  const lateChanges = late.map((r) => ({
    journalId: Number(r.id),
    period: r.closed_period,
    originalEffectiveAt: r.original_effective_at,
    reverses: r.reverses_journal_id === null ? null : Number(r.reverses_journal_id),
    entryType: r.entry_type,
    description: r.description,
  }));
  const accounts = new Set<string>();
  const currencies = new Set<string>();
  for (const r of [...carriedForward, ...inside, ...[...endOfDay.values()].flat()]) {
    accounts.add(r.account);
    currencies.add(r.currency);
  }
  return {
    accounts: [...accounts].sort(),
    currencies: [...currencies].sort(),
    carriedForward,
    days,
    endOfDay,
    lateChanges,
  };
}
