import type { Generated, Selectable } from 'kysely';

/** Something paysync could not reconcile, recorded once per dedupe key until resolved. */
export interface DiscrepancyTable {
  id: Generated<number>;
  kind: string;
  resource_kind: string | null;
  resource_id: string | null;
  /** JSON object explaining what was seen. */
  detail: string;
  /** The service's response body when it broke the contract, as text. */
  raw_body: string | null;
  inbox_id: number | null;
  dedupe_key: string;
  created_at: string;
  resolved_at: string | null;
}

export type DiscrepancyRow = Selectable<DiscrepancyTable>;
