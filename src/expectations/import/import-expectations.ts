import type { Kysely } from 'kysely';
import type { Database } from '../../db/index.ts';
import {
  parseExpectationInput,
  type ExpectationProblem,
  type ParsedExpectation,
} from '../expectation-input.ts';
import type { ChangeOrigin, ExpectationContext } from '../expectation.repository.ts';
import { loadExpectations } from '../load-expectations.ts';
import type { SourceRow } from './source-row.ts';

/** How many bad lines a result lists; the rest are counted. */
export const LISTED_BAD_ROWS = 20;

/** Rows written per statement batch, inside the one transaction. */
const BATCH_ROWS = 500;

export interface ImportOptions extends ChangeOrigin {
  /** Load the good rows even when some are bad (they are listed). @defaultValue false */
  readonly partial?: boolean;
  /** Check everything and count what would change, then roll back. @defaultValue false */
  readonly dryRun?: boolean;
  /** The books' time zone: a bare date in a window is that day there. */
  readonly timeZone: string;
  /** Called after each batch with the rows read so far. */
  readonly onProgress?: (rowsRead: number) => void;
}

export interface BadRow extends ExpectationProblem {
  readonly line: number;
}

export interface ImportResult {
  readonly created: number;
  readonly updated: number;
  readonly unchanged: number;
  /**
   * Of the loaded rows, how many are `matched` once loaded: matching runs for each batch's
   * created and updated rows, against the items already settled.
   */
  readonly matched: number;
  /** Of the loaded rows, how many are `partially_matched` once loaded. */
  readonly partiallyMatched: number;
  /** Rows read (good and bad). */
  readonly rows: number;
  /** The first {@link LISTED_BAD_ROWS} bad rows, in file order. */
  readonly bad: BadRow[];
  readonly badCount: number;
  /** Whether the changes were committed (false: dry run, or refused because of bad rows). */
  readonly loaded: boolean;
  readonly dryRun: boolean;
}

/** Thrown inside the transaction to roll it back; never escapes {@link importExpectations}. */
class RollBack extends Error {}

/**
 * Loads a stream of rows in ONE transaction, in batches: each row validated, a duplicate id
 * inside the file refused, each good row upserted (created, updated or unchanged), and each
 * batch's created and updated rows matched against what already settled (loadExpectations).
 * Any bad row rolls the whole file back unless `partial`; `dryRun` always rolls back. The rows
 * are never held all at once: only the ids seen so far (to refuse duplicates) and one batch.
 */
export async function importExpectations(
  db: Kysely<Database>,
  ctx: ExpectationContext,
  rows: AsyncIterable<SourceRow>,
  options: ImportOptions,
): Promise<ImportResult> {
  const counts = {
    created: 0,
    updated: 0,
    unchanged: 0,
    matched: 0,
    partiallyMatched: 0,
    rows: 0,
    badCount: 0,
  };
  const bad: BadRow[] = [];
  const partial = options.partial ?? false;
  const dryRun = options.dryRun ?? false;
  const origin: ChangeOrigin = { source: options.source, actor: options.actor };
  const refuse = (line: number, problem: ExpectationProblem) => {
    counts.badCount += 1;
    if (bad.length < LISTED_BAD_ROWS) bad.push({ line, ...problem });
  };
  // A dry run writes on (it rolls back anyway) so its counts are whole; otherwise the first bad
  // row ends the writing of a file that will be refused.
  const writing = () => partial || dryRun || counts.badCount === 0;

  const run = async (trx: Kysely<Database>) => {
    const firstLine = new Map<string, number>();
    let batch: ParsedExpectation[] = [];
    const flush = async () => {
      if (batch.length > 0 && writing()) {
        const loaded = await loadExpectations(trx, ctx, batch, origin);
        for (const outcome of loaded.outcomes) counts[outcome] += 1;
        counts.matched += loaded.matched;
        counts.partiallyMatched += loaded.partiallyMatched;
      }
      batch = [];
      options.onProgress?.(counts.rows);
    };
    for await (const row of rows) {
      counts.rows += 1;
      if ('problem' in row) {
        refuse(row.line, row.problem);
        continue;
      }
      const parsed = parseExpectationInput(row.raw, { timeZone: options.timeZone });
      if (!parsed.ok) {
        refuse(row.line, parsed.problem);
        continue;
      }
      const id = parsed.value.content.expectation_id;
      const first = firstLine.get(id);
      if (first !== undefined) {
        refuse(row.line, {
          field: 'expectation_id',
          reason: `"${id}" is already on line ${first} of this file: each expectation once per file`,
        });
        continue;
      }
      firstLine.set(id, row.line);
      batch.push(parsed.value);
      if (batch.length >= BATCH_ROWS) await flush();
    }
    await flush();
    if (dryRun || (counts.badCount > 0 && !partial)) throw new RollBack();
  };

  let loaded = true;
  try {
    await db.transaction().execute((trx) => run(trx));
  } catch (error) {
    if (!(error instanceof RollBack)) throw error;
    loaded = false;
  }
  if (!loaded && !dryRun) {
    // Refused: nothing was created or updated, whatever the batches before the bad row did.
    return {
      ...counts,
      created: 0,
      updated: 0,
      unchanged: 0,
      matched: 0,
      partiallyMatched: 0,
      bad,
      loaded,
      dryRun,
    };
  }
  return { ...counts, bad, loaded, dryRun };
}
