import type { Expression, ExpressionBuilder, Kysely, SqlBool, UpdateObject } from 'kysely';
import type { Database } from './database.ts';
import type { Executor } from './executor.ts';
import { prunableRows, type PrunableTable, type PruneBatch } from './prunable-rows.ts';

type Table = keyof Database & string;
type Column<T extends Table> = keyof Database[T] & string;

/** Which of a table's rows may go, as {@link prunableTable} takes it. */
type RowCondition<T extends Table> = (eb: ExpressionBuilder<Database, T>) => Expression<SqlBool>;

/**
 * A retention rule in the shape every owner's rule has: rows whose time column is older than the
 * cutoff and that meet a condition are picked in batches, oldest first, then deleted or updated
 * by id. Only the owner of `table` declares one (it names its table).
 */
export interface PruneRule<T extends Table> {
  readonly table: T;
  /**
   * The UTC ISO 8601 column whose age decides (`processed_at`, `consumed_at`, …); qualified
   * with the table's name when the condition reads the same table under another name.
   */
  readonly timeColumn: Column<T> | `${T}.${Column<T>}`;
  /** Which rows may go, besides their age. */
  readonly condition: RowCondition<T>;
  /**
   * Checked again on the picked ids as they are written, so a row that changed in between (a
   * replay reopened it) stays. @defaultValue {@link PruneRule.condition}
   */
  readonly recheck?: RowCondition<T>;
  /** What happens to a picked row: deleted, or updated with what `update` returns. */
  readonly update?: (batch: PruneBatch) => UpdateObject<Database, T>;
}

/**
 * The two statements retention runs on a table ({@link PrunableTable}) from its rule: what may
 * go before a cutoff (count and span of the time column), and one batch: pick at most `limit` ids
 * with an indexed range read, then write by id with the condition checked again, each statement
 * its own short transaction (docs/retention.md, "How pruning runs").
 */
export function prunableTable<T extends Table>(rule: PruneRule<T>): PrunableTable {
  // The statements are the same for every table, but kysely's builders cannot resolve a table
  // name that is still a type parameter: they are built over "any table", and the rule's own
  // parts stay typed against its table where the owner writes them.
  const table = rule.table as string;
  const time: string = rule.timeColumn;
  const condition = rule.condition as unknown as AnyCondition;
  const recheck = (rule.recheck ?? rule.condition) as unknown as AnyCondition;
  const update = rule.update as ((batch: PruneBatch) => Record<string, unknown>) | undefined;
  const older = (before: Date) => (eb: ExpressionBuilder<AnyTables, string>) =>
    eb.and([eb(time, '<', before.toISOString()), condition(eb)]);
  return {
    table,
    async prunable(executor: Executor, before: Date) {
      const row = await anyTables(executor)
        .selectFrom(table)
        .select((eb) => [
          eb.fn.countAll<number>().as('count'),
          eb.fn.min<string | null>(time).as('oldest'),
          eb.fn.max<string | null>(time).as('newest'),
        ])
        .where(older(before))
        .executeTakeFirst();
      return prunableRows(row);
    },
    async prune(executor: Executor, batch: PruneBatch) {
      const db = anyTables(executor);
      const picked = await db
        .selectFrom(table)
        .select(`${table}.id`)
        .where(older(batch.before))
        .orderBy(time)
        .limit(batch.limit)
        .execute();
      if (picked.length === 0) return 0;
      const ids = picked.map((row) => row.id as number);
      if (update) {
        const result = await db
          .updateTable(table)
          .set(update(batch))
          .where('id', 'in', ids)
          .where(recheck)
          .executeTakeFirst();
        return Number(result.numUpdatedRows);
      }
      const result = await db
        .deleteFrom(table)
        .where('id', 'in', ids)
        .where(recheck)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any table, any column
type AnyTables = Record<string, Record<string, any>>;
type AnyCondition = (eb: ExpressionBuilder<AnyTables, string>) => Expression<SqlBool>;

function anyTables(executor: Executor): Kysely<AnyTables> {
  return executor as unknown as Kysely<AnyTables>;
}
