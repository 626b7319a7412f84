import type { Kysely } from 'kysely';
import type { Database } from '../db/database.ts';

/**
 * Whether any received webhook named this resource (by id, or by reference when given).
 * Sweeps ask it before counting an item as a missed webhook: an event still waiting for its
 * sync was not missed.
 */
export async function inboxMentionsResource(
  db: Kysely<Database>,
  resource: { kind: string; id: string; reference?: string },
): Promise<boolean> {
  let query = db
    .selectFrom('webhook_inbox')
    .select('id')
    .where('resource_kind', '=', resource.kind);
  query =
    resource.reference === undefined
      ? query.where('resource_id', '=', resource.id)
      : query.where((eb) =>
          eb.or([
            eb('resource_id', '=', resource.id),
            eb('resource_reference', '=', resource.reference!),
          ]),
        );
  return (await query.limit(1).executeTakeFirst()) !== undefined;
}
