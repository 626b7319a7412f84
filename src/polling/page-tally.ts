import type { ApplyOutcome } from '../ledger/index.ts';

/** What applying some listed items did to the ledger. */
export interface PageTally {
  seen: number;
  /** First sighting. */
  new: number;
  /** A newer state of an item already in the mirror. */
  changed: number;
  unchanged: number;
  /** First sightings no webhook ever named (sweeps only). */
  missed: number;
  /** Settlement journals posted, gross per currency (positive lines, minor units). */
  booked: Record<string, number>;
}

export function emptyTally(): PageTally {
  return { seen: 0, new: 0, changed: 0, unchanged: 0, missed: 0, booked: {} };
}

export function addTally(into: PageTally, more: PageTally): PageTally {
  into.seen += more.seen;
  into.new += more.new;
  into.changed += more.changed;
  into.unchanged += more.unchanged;
  into.missed += more.missed;
  for (const [currency, amount] of Object.entries(more.booked)) {
    into.booked[currency] = (into.booked[currency] ?? 0) + amount;
  }
  return into;
}

/** Counts one apply outcome into the tally. */
export function countOutcome(tally: PageTally, outcome: ApplyOutcome): void {
  tally.seen += 1;
  if (!outcome.changed) tally.unchanged += 1;
  else if (outcome.previousStatus === undefined) tally.new += 1;
  else tally.changed += 1;
  for (const journal of outcome.journalsPosted) {
    const sign = journal.entryType === 'settlement' ? 1 : -1;
    for (const line of journal.lines) {
      if (line.amount > 0) {
        tally.booked[line.currency] = (tally.booked[line.currency] ?? 0) + sign * line.amount;
      }
    }
  }
}
