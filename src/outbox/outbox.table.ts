import type { Generated, Selectable } from 'kysely';

/**
 * A follow-up written in the transaction of the change that calls for it. The dispatcher
 * hands it to BullMQ (in a batch job, or alone as job `outbox-<id>`) and stamps
 * `dispatched_at`; the consumer stamps
 * `consumed_at` once its work is done, so a row handed out twice is done once.
 */
export interface OutboxTable {
  id: Generated<number>;
  /** Which consumer: `alert`, `receipt`, or a later kind. Also the name of a one-row job. */
  kind: string;
  /** Same key, same follow-up: a second insert is a no-op. Null: never deduplicated. */
  dedupe_key: string | null;
  /** JSON object handed to the consumer as the job's data. */
  payload: string;
  created_at: string;
  /** Not handed out before this time. */
  available_at: string;
  dispatched_at: string | null;
  consumed_at: string | null;
  dispatch_attempts: Generated<number>;
  /** Why the last hand-out (Redis) or consumer failed; a consumer's reason sends the row out alone. */
  last_error: string | null;
}

export type OutboxRow = Selectable<OutboxTable>;
