import type { Kysely } from 'kysely';
import { chunksOf, type Database } from '../db/index.ts';

/** A resource a sweep saw, by id and, when it has one, its reference. */
export interface MentionedResource {
  readonly id: string;
  readonly reference?: string | undefined;
}

/**
 * Whether any received webhook named this resource: by id, or, for a row that names no id, by
 * reference when one is given. Sweeps ask it before counting an item as a missed webhook: an
 * event still waiting for its sync was not missed.
 */
export async function inboxMentionsResource(
  db: Kysely<Database>,
  resource: { kind: string; id: string; reference?: string },
): Promise<boolean> {
  const mentioned = await inboxMentionedResources(db, resource.kind, [resource]);
  return mentioned.has(resource.id);
}

/**
 * {@link inboxMentionsResource} for the items of one list page: the ids of those some received
 * webhook named. Two statements per chunk, not one OR, as in `closeCoveredInboxRows`: each is
 * served by an index on (resource_kind, resource_id) or the reference. The OR form could use
 * only the kind, so SQLite read every inbox row of that kind for each item a sweep saw first:
 * a cost that grows with the inbox (10% of the daemon's CPU late in a 200 items/s soak,
 * docs/performance.md).
 */
export async function inboxMentionedResources(
  db: Kysely<Database>,
  kind: string,
  resources: readonly MentionedResource[],
): Promise<Set<string>> {
  const mentioned = new Set<string>();
  for (const chunk of chunksOf(resources)) {
    const byId = await db
      .selectFrom('webhook_inbox')
      .select('resource_id')
      .distinct()
      .where('resource_kind', '=', kind)
      .where(
        'resource_id',
        'in',
        chunk.map((resource) => resource.id),
      )
      .execute();
    for (const row of byId) if (row.resource_id !== null) mentioned.add(row.resource_id);
    const withReference = chunk.filter(
      (resource): resource is MentionedResource & { reference: string } =>
        !mentioned.has(resource.id) && resource.reference !== undefined,
    );
    if (withReference.length === 0) continue;
    const byReference = await db
      .selectFrom('webhook_inbox')
      .select('resource_reference')
      .distinct()
      .where('resource_kind', '=', kind)
      .where('resource_id', 'is', null)
      .where(
        'resource_reference',
        'in',
        withReference.map((resource) => resource.reference),
      )
      .execute();
    const references = new Set(byReference.map((row) => row.resource_reference));
    for (const resource of withReference)
      if (references.has(resource.reference)) mentioned.add(resource.id);
  }
  return mentioned;
}
