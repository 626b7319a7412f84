import type { Selectable } from 'kysely';

/** Facts every paysync process must see, one row per key, value as JSON. */
export interface ServiceStateTable {
  key: string;
  value: string;
  /** UTC ISO 8601 with milliseconds. */
  updated_at: string;
}

export type ServiceStateRow = Selectable<ServiceStateTable>;
