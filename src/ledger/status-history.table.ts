import type { Generated, Selectable } from 'kysely';
import type { ObservedVia } from '../resources/index.ts';

/** One row per change of a mirror row's status, with how and when we learned of it. */
export interface StatusHistoryTable {
  id: Generated<number>;
  resource_kind: string;
  resource_id: string;
  /** Null on the first sighting. */
  from_status: string | null;
  to_status: string;
  observed_at: string;
  via: ObservedVia;
  inbox_id: number | null;
  /** The service's updatedAt of the state that carried the change. Unique per resource. */
  service_updated_at: string;
}

export type StatusHistoryRow = Selectable<StatusHistoryTable>;
