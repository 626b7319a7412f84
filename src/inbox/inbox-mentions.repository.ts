import type { Kysely } from 'kysely';
import type { Database } from '../db/index.ts';

/**
 * Whether any received webhook named this resource: by id, or, for a row that names no id, by
 * reference when one is given. Sweeps ask it before counting an item as a missed webhook: an
 * event still waiting for its sync was not missed.
 *
 * Two statements, not one OR, as in `closeCoveredInboxRows`: each is served by the
 * (resource_kind, resource_id) index. The OR form could use only the kind, so SQLite read every
 * inbox row of that kind for each item a sweep saw first: a cost that grows with the inbox
 * (10% of the daemon's CPU late in a 200 items/s soak, docs/performance.md).
 */
export async function inboxMentionsResource(
  db: Kysely<Database>,
  resource: { kind: string; id: string; reference?: string },
): Promise<boolean> {
  const mention = () =>
    db.selectFrom('webhook_inbox').select('id').where('resource_kind', '=', resource.kind);
  const byId = await mention().where('resource_id', '=', resource.id).limit(1).executeTakeFirst();
  if (byId !== undefined) return true;
  if (resource.reference === undefined) return false;
  const byReference = await mention()
    .where('resource_id', 'is', null)
    .where('resource_reference', '=', resource.reference)
    .limit(1)
    .executeTakeFirst();
  return byReference !== undefined;
}
