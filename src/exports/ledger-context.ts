import type { Kysely } from 'kysely';
import type { Database } from '../db/index.ts';
import { snapshotsAtEach } from '../balances/index.ts';
import {
  accountsBookedIn,
  balancesBefore,
  lateChangesIn,
  SERVICE_ACCOUNTS,
  type ServiceAccountType,
} from '../ledger/index.ts';
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
  const before = await balancesBefore(db, window.from);
  const inside = await accountsBookedIn(db, window);
  const carriedForward = before
    .map((r) => ({ account: r.account, currency: r.currency, amount: r.balance }))
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
  const snapshots = await snapshotsAtEach(db, environment, [...ends.keys()]);
  const endOfDay = new Map<string, AccountAmount[]>();
  for (const s of snapshots) {
    const account = SERVICE_ACCOUNTS[s.accountType as ServiceAccountType];
    const day = ends.get(s.asOf);
    if (!account || !day) continue;
    const list = endOfDay.get(day) ?? [];
    list.push({ account, currency: s.currency, amount: s.amount });
    endOfDay.set(day, list);
  }

  const lateChanges = await lateChangesIn(db, window);
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
