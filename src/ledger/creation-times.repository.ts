import type { Executor } from '../db/index.ts';

/** How a waiting resource is named: by id, by reference, or both. */
export interface NamedItem {
  readonly id?: string | undefined;
  readonly reference?: string | undefined;
}

const CHUNK = 500;

/**
 * The service's `createdAt` of the mirrored payment intents or transfers among `items`, keyed
 * `id:<id>` and `ref:<reference>` (a purchase reference for intents). Items the mirror has never
 * seen are absent. The planner of window reads uses these as exact creation times; an event's
 * arrival is only a hint. Served by the primary keys and the reference indexes.
 */
export async function mirrorCreationTimes(
  db: Executor,
  kind: 'payment_intent' | 'transfer',
  items: readonly NamedItem[],
): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const ids = [...new Set(items.flatMap((item) => (item.id ? [item.id] : [])))];
  const references = [
    ...new Set(items.flatMap((item) => (!item.id && item.reference ? [item.reference] : []))),
  ];
  const table = kind === 'transfer' ? 'transfers' : 'payment_intents';
  const referenceColumn = kind === 'transfer' ? 'reference' : 'purchase_reference';
  for (let at = 0; at < ids.length; at += CHUNK) {
    const rows = await db
      .selectFrom(table)
      .select(['id', 'created_at'])
      .where('id', 'in', ids.slice(at, at + CHUNK))
      .execute();
    for (const row of rows) found.set(`id:${row.id}`, row.created_at);
  }
  for (let at = 0; at < references.length; at += CHUNK) {
    const rows = await db
      .selectFrom(table)
      .select([`${referenceColumn} as reference`, 'created_at'])
      .where(referenceColumn, 'in', references.slice(at, at + CHUNK))
      .execute();
    for (const row of rows) {
      const known = found.get(`ref:${row.reference}`);
      if (!known || row.created_at < known) found.set(`ref:${row.reference}`, row.created_at);
    }
  }
  return found;
}
