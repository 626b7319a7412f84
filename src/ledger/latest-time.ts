import { sql } from 'kysely';

/** `last_synced_at` only moves forward, whatever order observations arrive in. */
export function laterSyncTime(observedAt: string) {
  return sql<string>`case when last_synced_at < ${observedAt} then ${observedAt} else last_synced_at end`;
}
