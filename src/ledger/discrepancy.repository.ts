import { sql } from 'kysely';
import { createHash } from 'node:crypto';
import type { DiscrepancyRow } from './discrepancy.table.ts';
import type { Executor } from '../db/index.ts';
import { runBulk, type BulkStatement } from '../db/index.ts';
import type { DiscrepancyKind, DiscrepancySummary } from './ledger-types.ts';
import { utcMillis } from './utc-millis.ts';

export interface NewDiscrepancy {
  readonly kind: DiscrepancyKind;
  readonly resourceKind?: string;
  readonly resourceId?: string;
  readonly detail?: Readonly<Record<string, unknown>>;
  /** The service's body as received: a string or Buffer is kept as text, anything else as JSON. */
  readonly rawBody?: unknown;
  readonly inboxId?: number;
  /**
   * Same key, same discrepancy: recorded once. @defaultValue kind, resource kind and id, and a
   * hash of `detail` (not of the raw body, which may differ between two fetches of one fault).
   */
  readonly dedupeKey?: string;
  /** When it was found, by the caller's clock (UTC ISO 8601). */
  readonly createdAt: string;
}

export interface RecordedDiscrepancy {
  /** False when a discrepancy with this dedupe key was already on file (it is returned). */
  readonly isNew: boolean;
  readonly discrepancy: DiscrepancySummary;
}

/** Records a discrepancy once per dedupe key; a repeat is a no-op decided by the unique key. */
export async function recordDiscrepancy(
  db: Executor,
  input: NewDiscrepancy,
): Promise<RecordedDiscrepancy> {
  const detail = input.detail ?? {};
  const dedupeKey =
    input.dedupeKey ?? defaultDedupeKey(input.kind, input.resourceKind, input.resourceId, detail);
  const inserted = await db
    .insertInto('discrepancies')
    .values({
      kind: input.kind,
      resource_kind: input.resourceKind ?? null,
      resource_id: input.resourceId ?? null,
      detail: JSON.stringify(detail),
      raw_body: rawBodyText(input.rawBody),
      inbox_id: input.inboxId ?? null,
      dedupe_key: dedupeKey,
      created_at: utcMillis(input.createdAt, 'createdAt'),
      resolved_at: null,
    })
    .onConflict((oc) => oc.column('dedupe_key').doNothing())
    .returningAll()
    .executeTakeFirst();
  if (inserted) return { isNew: true, discrepancy: toDiscrepancySummary(inserted) };
  const existing = await db
    .selectFrom('discrepancies')
    .selectAll()
    .where('dedupe_key', '=', dedupeKey)
    .executeTakeFirstOrThrow();
  return { isNew: false, discrepancy: toDiscrepancySummary(existing) };
}

const INSERT_DISCREPANCIES: BulkStatement = {
  table: 'discrepancies',
  columns: [
    'kind',
    'resource_kind',
    'resource_id',
    'detail',
    'raw_body',
    'inbox_id',
    'dedupe_key',
    'created_at',
    'resolved_at',
  ],
  tail: 'on conflict (dedupe_key) do nothing returning *',
};

/**
 * The batch form of {@link recordDiscrepancy}, in one multi-row insert: of several with one
 * dedupe key the first is kept, as one by one. Returns the new ones by dedupe key (one already
 * on file is not returned).
 */
export async function recordNewDiscrepancies(
  db: Executor,
  inputs: readonly NewDiscrepancy[],
): Promise<Map<string, DiscrepancySummary>> {
  const byKey = new Map<string, unknown[]>();
  for (const input of inputs) {
    const detail = input.detail ?? {};
    const dedupeKey =
      input.dedupeKey ?? defaultDedupeKey(input.kind, input.resourceKind, input.resourceId, detail);
    if (byKey.has(dedupeKey)) continue;
    byKey.set(dedupeKey, [
      input.kind,
      input.resourceKind ?? null,
      input.resourceId ?? null,
      JSON.stringify(detail),
      rawBodyText(input.rawBody),
      input.inboxId ?? null,
      dedupeKey,
      utcMillis(input.createdAt, 'createdAt'),
      null,
    ]);
  }
  const inserted = await runBulk<DiscrepancyRow>(db, INSERT_DISCREPANCIES, [...byKey.values()]);
  return new Map(inserted.map((row) => [row.dedupe_key, toDiscrepancySummary(row)]));
}

/** Marks a discrepancy resolved at `resolvedAt` (the caller's clock); returns false when there is no open one with that id. */
export async function resolveDiscrepancy(
  db: Executor,
  id: number,
  resolvedAt: string,
): Promise<boolean> {
  const result = await db
    .updateTable('discrepancies')
    .set({ resolved_at: utcMillis(resolvedAt, 'resolvedAt') })
    .where('id', '=', id)
    .where('resolved_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Unresolved discrepancies, newest first. @defaultValue limit 100 */
export async function openDiscrepancies(
  db: Executor,
  options: { limit?: number } = {},
): Promise<DiscrepancySummary[]> {
  const rows = await db
    .selectFrom('discrepancies')
    .selectAll()
    .where('resolved_at', 'is', null)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(options.limit ?? 100)
    .execute();
  return rows.map(toDiscrepancySummary);
}

/** Whether a discrepancy with this id exists, resolved or not. */
export async function discrepancyExists(db: Executor, id: number): Promise<boolean> {
  const row = await db
    .selectFrom('discrepancies')
    .select('id')
    .where('id', '=', id)
    .executeTakeFirst();
  return row !== undefined;
}

/** How many discrepancies of each kind are unresolved. */
export async function openDiscrepancyCounts(
  db: Executor,
): Promise<{ kind: DiscrepancyKind; count: number }[]> {
  const rows = await db
    .selectFrom('discrepancies')
    .select(['kind', sql<number>`count(*)`.as('count')])
    .where('resolved_at', 'is', null)
    .groupBy('kind')
    .execute();
  return rows.map((row) => ({ kind: row.kind, count: Number(row.count) }));
}

/**
 * The JSON details of unresolved balance drifts, newest first (each names its environment,
 * account type, currency and difference). @defaultValue every one
 */
export async function openDriftDetails(
  db: Executor,
  options: { limit?: number } = {},
): Promise<string[]> {
  const rows = await db
    .selectFrom('discrepancies')
    .select('detail')
    .where('kind', '=', 'balance_drift')
    .where('resolved_at', 'is', null)
    .orderBy('id', 'desc')
    .$if(options.limit !== undefined, (qb) => qb.limit(options.limit!))
    .execute();
  return rows.map((row) => row.detail);
}

export async function discrepanciesFor(
  db: Executor,
  resourceKind: string,
  resourceId: string,
): Promise<DiscrepancySummary[]> {
  const rows = await db
    .selectFrom('discrepancies')
    .selectAll()
    .where('resource_kind', '=', resourceKind)
    .where('resource_id', '=', resourceId)
    .orderBy('id')
    .execute();
  return rows.map(toDiscrepancySummary);
}

function defaultDedupeKey(
  kind: string,
  resourceKind: string | undefined,
  resourceId: string | undefined,
  detail: Readonly<Record<string, unknown>>,
): string {
  const digest = createHash('sha256').update(stableJson(detail)).digest('hex').slice(0, 16);
  return `${kind}:${resourceKind ?? '-'}:${resourceId ?? '-'}:${digest}`;
}

/** JSON with object keys sorted, so equal details hash equally whatever their key order. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function rawBodyText(raw: unknown): string | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw === 'string') return raw;
  if (Buffer.isBuffer(raw)) return raw.toString('utf8');
  return JSON.stringify(raw) ?? String(raw);
}

export function toDiscrepancySummary(row: DiscrepancyRow): DiscrepancySummary {
  return {
    id: row.id,
    kind: row.kind,
    resourceKind: row.resource_kind,
    resourceId: row.resource_id,
    detail: JSON.parse(row.detail) as Record<string, unknown>,
    rawBody: row.raw_body,
    inboxId: row.inbox_id,
    dedupeKey: row.dedupe_key,
    createdAt: row.created_at,
    resolvedAt: row.resolved_at,
  };
}
