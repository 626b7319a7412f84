import type { ExpressionBuilder } from 'kysely';
import type { Database, Executor } from '../db/index.ts';
import type { ResourceKind } from '../resources/index.ts';

/** Which resource an inbox row names, as far as anyone knows. */
export interface ResourceHandle {
  readonly kind: ResourceKind;
  readonly id?: string | undefined;
  readonly reference?: string | undefined;
}

const OPEN_STATUSES = ['received', 'processing'] as const;

/**
 * Writes what the classifier found on the row and moves it to `processing`, counting one
 * attempt. Only an open row moves: a row already processed stays processed. Returns whether
 * the row was open.
 */
export async function recordInboxResource(
  db: Executor,
  inboxId: number,
  resource: ResourceHandle,
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_inbox')
    .set((eb) => ({
      status: 'processing',
      resource_kind: resource.kind,
      resource_id: resource.id ?? null,
      resource_reference: resource.reference ?? null,
      attempts: eb('attempts', '+', 1),
    }))
    .where('id', '=', inboxId)
    .where('status', 'in', OPEN_STATUSES)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * The highest inbox id now. Read before a fetch: every row at or below it was received
 * before the fetch began (ids are handed out on arrival), so the fetched state covers it.
 */
export async function latestInboxId(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('webhook_inbox')
    .select((eb) => eb.fn.max('id').as('max'))
    .executeTakeFirst();
  return Number(row?.max ?? 0);
}

export interface CoveredRowsUpdate {
  readonly upToId: number;
  readonly status: 'processed' | 'failed';
  readonly lastError?: string;
  readonly at: string;
}

/**
 * Closes the open rows about `resource` received before the fetch (id ≤ `upToId`): those that
 * name it by id, and those that name it only by reference. Rows that arrived during the fetch
 * stay open: their change may be newer than what was fetched, and their own sync closes them.
 */
export async function closeCoveredInboxRows(
  db: Executor,
  resource: ResourceHandle,
  update: CoveredRowsUpdate,
): Promise<number> {
  const { id, reference } = resource;
  const close = () =>
    db
      .updateTable('webhook_inbox')
      .set({ status: update.status, processed_at: update.at, last_error: update.lastError ?? null })
      .where('resource_kind', '=', resource.kind)
      .where('id', '<=', update.upToId)
      .where('status', 'in', OPEN_STATUSES);
  let closed = 0;
  // Two statements, not one OR: each one is served by the (resource_kind, resource_id) index.
  if (id !== undefined) {
    const byId = await close().where('resource_id', '=', id).executeTakeFirst();
    closed += Number(byId.numUpdatedRows);
  }
  if (reference !== undefined) {
    const byReference = await close()
      .where('resource_id', 'is', null)
      .where('resource_reference', '=', reference)
      .executeTakeFirst();
    closed += Number(byReference.numUpdatedRows);
  }
  return closed;
}

/**
 * How the rows about a batch's resources are found: per kind, those naming one by id, and those
 * naming one only by reference. One statement per group, never one OR across them: each group is
 * `resource_kind = ? and resource_id in (…)` (or `resource_id is null and resource_reference in
 * (…)`), served by the (resource_kind, resource_id) index. An OR across kinds could use only the
 * status index, and would read every open row of a backlog for each batch.
 */
interface Naming {
  readonly kind: string;
  readonly column: 'resource_id' | 'resource_reference';
  /** The resources of this group that name each value, with the batch's index of each. */
  readonly byValue: Map<string, number[]>;
}

function namingsOf(resources: readonly ResourceHandle[]): Naming[] {
  const namings = new Map<string, Naming>();
  const add = (kind: string, column: Naming['column'], value: string, index: number) => {
    const key = `${kind} ${column}`;
    let naming = namings.get(key);
    if (!naming) namings.set(key, (naming = { kind, column, byValue: new Map() }));
    naming.byValue.set(value, [...(naming.byValue.get(value) ?? []), index]);
  };
  resources.forEach(({ kind, id, reference }, index) => {
    if (id !== undefined) add(kind, 'resource_id', id, index);
    if (reference !== undefined) add(kind, 'resource_reference', reference, index);
  });
  return [...namings.values()];
}

/** The open rows of one naming group (see {@link Naming}). */
function openRowsNamed(eb: ExpressionBuilder<Database, 'webhook_inbox'>, naming: Naming) {
  return eb.and([
    eb('status', 'in', OPEN_STATUSES),
    eb('resource_kind', '=', naming.kind),
    ...(naming.column === 'resource_reference' ? [eb('resource_id', 'is', null)] : []),
    eb(naming.column, 'in', [...naming.byValue.keys()]),
  ]);
}

/**
 * {@link closeCoveredInboxRows} for the resources of one batch: for each resource, the open rows
 * at or below its own fetch's highest id (`upToId`) that name it by id, or by reference alone.
 * One statement per kind and way of naming (see {@link Naming}). Returns the rows closed.
 */
export async function closeCoveredInboxRowsOf(
  db: Executor,
  covered: readonly { readonly resource: ResourceHandle; readonly upToId: number }[],
  update: Omit<CoveredRowsUpdate, 'upToId'>,
): Promise<number> {
  let closed = 0;
  for (const naming of namingsOf(covered.map(({ resource }) => resource))) {
    const limits = [...naming.byValue].map(([value, indexes]) => ({
      value,
      upToId: Math.max(...indexes.map((index) => covered[index]!.upToId)),
    }));
    const result = await db
      .updateTable('webhook_inbox')
      .set({ status: update.status, processed_at: update.at, last_error: update.lastError ?? null })
      .where((eb) => openRowsNamed(eb, naming))
      .where((eb) =>
        eb.or(
          limits.map(({ value, upToId }) =>
            eb.and([eb(naming.column, '=', value), eb('id', '<=', upToId)]),
          ),
        ),
      )
      .executeTakeFirst();
    closed += Number(result.numUpdatedRows);
  }
  return closed;
}

/** The reference an earlier event about this resource carried, newest first. */
export async function referenceFromInbox(
  db: Executor,
  kind: ResourceKind,
  id: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('webhook_inbox')
    .select('resource_reference')
    .where('resource_kind', '=', kind)
    .where('resource_id', '=', id)
    .where('resource_reference', 'is not', null)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.resource_reference ?? undefined;
}

/** Keeps why the last attempt failed on an open row, for `show` and the operator. */
export async function noteInboxError(db: Executor, inboxId: number, reason: string): Promise<void> {
  await db
    .updateTable('webhook_inbox')
    .set({ last_error: reason.slice(0, 1000) })
    .where('id', '=', inboxId)
    .where('status', 'in', OPEN_STATUSES)
    .execute();
}

/**
 * The highest id among the open rows about each resource (by id, or by reference alone), in
 * order, 0 when none is open; one query per kind and way of naming. A sync compares it with what an earlier fetch
 * covered to decide whether it must fetch at all.
 */
export async function latestOpenInboxIdsFor(
  db: Executor,
  resources: readonly ResourceHandle[],
): Promise<number[]> {
  const latest = resources.map(() => 0);
  for (const naming of namingsOf(resources)) {
    const rows = await db
      .selectFrom('webhook_inbox')
      .select((eb) => [naming.column, eb.fn.max('id').as('max')])
      .where((eb) => openRowsNamed(eb, naming))
      .groupBy(naming.column)
      .execute();
    for (const row of rows) {
      const value = (row as Record<string, unknown>)[naming.column] as string;
      for (const index of naming.byValue.get(value) ?? [])
        latest[index] = Math.max(latest[index]!, Number(row.max ?? 0));
    }
  }
  return latest;
}
