import type { Executor } from '../db/index.ts';

/**
 * Resolves when the inbox can be written, rejects with the database's reason when not.
 *
 * An UPDATE matching no row is a write to the database's eyes (SQLite takes the write lock
 * and refuses a read-only file; PostgreSQL checks the UPDATE privilege and refuses a read-only
 * transaction or a standby) yet changes nothing, takes no id and leaves no row behind.
 */
export async function probeInboxWrite(db: Executor): Promise<void> {
  await db
    .updateTable('webhook_inbox')
    .set((eb) => ({ attempts: eb.ref('attempts') }))
    .where('id', '<', 0)
    .execute();
}
