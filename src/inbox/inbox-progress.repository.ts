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

type NamedResources = Map<string, { ids: Set<string>; references: Set<string> }>;

/** Rows that name one of `byKind`'s resources: by id, or (with no id) by reference. */
function namedBy(eb: ExpressionBuilder<Database, 'webhook_inbox'>, byKind: NamedResources) {
  return eb.or(
    [...byKind].flatMap(([kind, { ids, references }]) => [
      ...(ids.size > 0
        ? [eb.and([eb('resource_kind', '=', kind), eb('resource_id', 'in', [...ids])])]
        : []),
      ...(references.size > 0
        ? [
            eb.and([
              eb('resource_kind', '=', kind),
              eb('resource_id', 'is', null),
              eb('resource_reference', 'in', [...references]),
            ]),
          ]
        : []),
    ]),
  );
}

/** The resources of a batch by kind: their ids, and their references. */
function byKindOf(resources: readonly ResourceHandle[]): NamedResources {
  const byKind: NamedResources = new Map();
  for (const { kind, id, reference } of resources) {
    let named = byKind.get(kind);
    if (!named) byKind.set(kind, (named = { ids: new Set(), references: new Set() }));
    if (id !== undefined) named.ids.add(id);
    if (reference !== undefined) named.references.add(reference);
  }
  return byKind;
}

/**
 * {@link closeCoveredInboxRows} for the resources of one batch, in one statement: for each
 * resource, the open rows at or below its own fetch's highest id (`upToId`) that name it by
 * id, or by reference alone. Returns the rows closed.
 */
export async function closeCoveredInboxRowsOf(
  db: Executor,
  covered: readonly { readonly resource: ResourceHandle; readonly upToId: number }[],
  update: Omit<CoveredRowsUpdate, 'upToId'>,
): Promise<number> {
  const terms = covered.filter(
    ({ resource }) => resource.id !== undefined || resource.reference !== undefined,
  );
  if (terms.length === 0) return 0;
  const result = await db
    .updateTable('webhook_inbox')
    .set({ status: update.status, processed_at: update.at, last_error: update.lastError ?? null })
    .where('status', 'in', OPEN_STATUSES)
    .where('id', '<=', Math.max(...terms.map(({ upToId }) => upToId)))
    .where((eb) =>
      eb.or(
        terms.flatMap(({ resource: { kind, id, reference }, upToId }) => [
          ...(id !== undefined
            ? [
                eb.and([
                  eb('resource_kind', '=', kind),
                  eb('resource_id', '=', id),
                  eb('id', '<=', upToId),
                ]),
              ]
            : []),
          ...(reference !== undefined
            ? [
                eb.and([
                  eb('resource_kind', '=', kind),
                  eb('resource_id', 'is', null),
                  eb('resource_reference', '=', reference),
                  eb('id', '<=', upToId),
                ]),
              ]
            : []),
        ]),
      ),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
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
 * order, 0 when none is open; one query for all. A sync compares it with what an earlier fetch
 * covered to decide whether it must fetch at all.
 */
export async function latestOpenInboxIdsFor(
  db: Executor,
  resources: readonly ResourceHandle[],
): Promise<number[]> {
  const byKind = byKindOf(resources);
  if (byKind.size === 0) return resources.map(() => 0);
  const rows = await db
    .selectFrom('webhook_inbox')
    .select((eb) => [
      'resource_kind',
      'resource_id',
      'resource_reference',
      eb.fn.max('id').as('max'),
    ])
    .where('status', 'in', OPEN_STATUSES)
    .where((eb) => namedBy(eb, byKind))
    .groupBy(['resource_kind', 'resource_id', 'resource_reference'])
    .execute();
  const latest = new Map<string, number>();
  const keep = (key: string, id: number) => latest.set(key, Math.max(latest.get(key) ?? 0, id));
  for (const row of rows) {
    const max = Number(row.max ?? 0);
    if (row.resource_id !== null) keep(`${row.resource_kind} id ${row.resource_id}`, max);
    else if (row.resource_reference !== null)
      keep(`${row.resource_kind} ref ${row.resource_reference}`, max);
  }
  return resources.map(({ kind, id, reference }) =>
    Math.max(
      id !== undefined ? (latest.get(`${kind} id ${id}`) ?? 0) : 0,
      reference !== undefined ? (latest.get(`${kind} ref ${reference}`) ?? 0) : 0,
    ),
  );
}
