import type { Executor } from '../db/index.ts';
import { chunksOf, runBulk, type BulkStatement } from '../db/index.ts';
import type { LedgerResourceKind } from './ledger-resource-kind.ts';
import type { Observation, StatusChange } from './ledger-types.ts';

/** One change of a mirror's status to record. */
export interface NewStatusChange {
  readonly resource: { kind: LedgerResourceKind; id: string; serviceUpdatedAt: string };
  readonly fromStatus: string | undefined;
  readonly toStatus: string;
  readonly observation: Observation;
}

const INSERT_HISTORY: BulkStatement = {
  table: 'status_history',
  columns: [
    'resource_kind',
    'resource_id',
    'from_status',
    'to_status',
    'observed_at',
    'via',
    'inbox_id',
    'service_updated_at',
  ],
  tail: 'on conflict (resource_kind, resource_id, service_updated_at) do nothing',
};

/**
 * One row per change of the mirror's status, in one multi-row insert. Unique per (resource,
 * service updatedAt), so a replay of a state already recorded adds nothing.
 */
export async function recordStatusChanges(
  db: Executor,
  changes: readonly NewStatusChange[],
): Promise<void> {
  await runBulk(
    db,
    INSERT_HISTORY,
    changes.map(({ resource, fromStatus, toStatus, observation }) => [
      resource.kind,
      resource.id,
      fromStatus ?? null,
      toStatus,
      observation.observedAt,
      observation.via,
      observation.inboxId ?? null,
      resource.serviceUpdatedAt,
    ]),
  );
}

export async function statusHistoryFor(
  db: Executor,
  kind: LedgerResourceKind,
  id: string,
): Promise<StatusChange[]> {
  const rows = await db
    .selectFrom('status_history')
    .selectAll()
    .where('resource_kind', '=', kind)
    .where('resource_id', '=', id)
    .orderBy('service_updated_at')
    .orderBy('id')
    .execute();
  return rows.map((row) => ({
    fromStatus: row.from_status,
    toStatus: row.to_status,
    observedAt: row.observed_at,
    via: row.via,
    inboxId: row.inbox_id,
    serviceUpdatedAt: row.service_updated_at,
  }));
}

/** How paysync first learned of a resource (its first status history row), if it has. */
export async function firstSightingVia(
  db: Executor,
  kind: LedgerResourceKind,
  id: string,
): Promise<StatusChange['via'] | undefined> {
  const row = await db
    .selectFrom('status_history')
    .select('via')
    .where('resource_kind', '=', kind)
    .where('resource_id', '=', id)
    .where('from_status', 'is', null)
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return row?.via;
}

/** {@link firstSightingVia} for many resources of one kind, by id (absent: never seen). */
export async function firstSightingsVia(
  db: Executor,
  kind: LedgerResourceKind,
  ids: readonly string[],
): Promise<Map<string, StatusChange['via']>> {
  const first = new Map<string, StatusChange['via']>();
  for (const chunk of chunksOf(ids)) {
    const rows = await db
      .selectFrom('status_history')
      .select(['resource_id', 'via'])
      .where('resource_kind', '=', kind)
      .where('resource_id', 'in', chunk)
      .where('from_status', 'is', null)
      .orderBy('id')
      .execute();
    for (const row of rows) if (!first.has(row.resource_id)) first.set(row.resource_id, row.via);
  }
  return first;
}
