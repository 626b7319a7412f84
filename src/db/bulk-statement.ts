import { CompiledQuery } from 'kysely';
import type { DialectName } from './create-database.ts';
import { dialectOfDb } from './dialect-of-db.ts';
import type { Executor } from './executor.ts';

/**
 * A multi-row INSERT on the hot path, written once as SQL and compiled once per dialect and
 * row count (issue 21, design point 4): no query building per call, only parameters.
 */
export interface BulkStatement {
  readonly table: string;
  readonly columns: readonly string[];
  /**
   * Everything after the VALUES list: `on conflict … do …` and `returning …`, or ''. `{0}`,
   * `{1}`… stand for parameters given once per statement (`extra` of {@link runBulk}).
   */
  readonly tail: string;
}

// Both dialects allow far more (SQLite 32,766 variables, PostgreSQL 65,535 parameters); a
// chunk of a few hundred rows keeps each statement's text, and its cache entry, small.
const MAX_PARAMETERS = 30_000;
const MAX_ROWS = 500;

const compiled = new Map<string, string>();

function sqlText(dialect: DialectName, statement: BulkStatement, rows: number): string {
  const key = `${dialect}\u0000${statement.table}\u0000${statement.columns.join(',')}\u0000${statement.tail}\u0000${rows}`;
  let text = compiled.get(key);
  if (text === undefined) {
    const width = statement.columns.length;
    let n = 0;
    const placeholder = dialect === 'postgres' ? () => `$${++n}` : () => '?';
    const tuples = Array.from(
      { length: rows },
      () => `(${Array.from({ length: width }, placeholder).join(', ')})`,
    );
    const tail = statement.tail.replace(/\{\d+\}/g, placeholder);
    text = `insert into ${statement.table} (${statement.columns.join(', ')}) values ${tuples.join(', ')} ${tail}`;
    compiled.set(key, text);
  }
  return text;
}

/** Runs `statement` over `rows` (values in `columns` order), in chunks; returns what it returns. */
export async function runBulk<R>(
  db: Executor,
  statement: BulkStatement,
  rows: readonly (readonly unknown[])[],
  extra: readonly unknown[] = [],
): Promise<R[]> {
  if (rows.length === 0) return [];
  const dialect = dialectOfDb(db);
  const perChunk = Math.max(
    1,
    Math.min(MAX_ROWS, Math.floor(MAX_PARAMETERS / statement.columns.length)),
  );
  const returned: R[] = [];
  for (let start = 0; start < rows.length; start += perChunk) {
    const chunk = rows.slice(start, start + perChunk);
    const query = CompiledQuery.raw(sqlText(dialect, statement, chunk.length), [
      ...chunk.flat(),
      ...extra,
    ]);
    const result = await db.executeQuery<R>(query);
    returned.push(...result.rows);
  }
  return returned;
}

/** Splits `values` into slices of at most `size`, for `where … in (…)` lists. */
export function chunksOf<T>(values: readonly T[], size = MAX_ROWS): T[][] {
  const chunks: T[][] = [];
  for (let start = 0; start < values.length; start += size) {
    chunks.push(values.slice(start, start + size));
  }
  return chunks;
}
