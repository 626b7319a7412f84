import type { Executor } from '../db/index.ts';
import { outboxSignal } from './outbox-signal.ts';

export interface NewOutboxEntry {
  /** Which consumer takes it: `alert`, `receipt`, or a later kind (the follow-up job routes by it). */
  readonly kind: string;
  /**
   * Same key, same follow-up: a second add (a replayed sync, a retried job) is a no-op.
   * @defaultValue none: every add is a new row
   */
  readonly dedupeKey?: string;
  /** Handed to the consumer as job data (with `type` = kind and `outboxId`); JSON only. */
  readonly payload: Readonly<Record<string, unknown>>;
  /** Not handed out before this time (UTC ISO 8601). @defaultValue `createdAt` */
  readonly availableAt?: string;
  /** When the follow-up was called for, by the caller's clock (UTC ISO 8601). */
  readonly createdAt: string;
  /**
   * The W3C `traceparent` of the change that called for it, so the follow-up continues that
   * trace (docs/observability.md); kept in the payload, which the follow-up job takes it off.
   */
  readonly traceparent?: string | undefined;
}

export interface AddedOutboxEntry {
  readonly id: number;
  /** False when a row with this dedupe key was already there (its id is returned). */
  readonly isNew: boolean;
}

/**
 * Writes a follow-up to the outbox. Call it with the transaction of the change that calls for
 * the follow-up: both commit or neither does, so a follow-up is never lost to a Redis outage
 * and never sent for a change that rolled back. After the commit, {@link notifyOutbox} wakes
 * the dispatcher at once (without it the next poll, within a second, picks the row up).
 */
export async function addToOutbox(
  executor: Executor,
  entry: NewOutboxEntry,
): Promise<AddedOutboxEntry> {
  const inserted = await executor
    .insertInto('outbox')
    .values({
      kind: entry.kind,
      dedupe_key: entry.dedupeKey ?? null,
      payload: JSON.stringify(
        entry.traceparent ? { ...entry.payload, traceparent: entry.traceparent } : entry.payload,
      ),
      created_at: entry.createdAt,
      available_at: entry.availableAt ?? entry.createdAt,
      dispatched_at: null,
      consumed_at: null,
      last_error: null,
    })
    .onConflict((oc) => oc.column('dedupe_key').doNothing())
    .returning('id')
    .executeTakeFirst();
  if (inserted) return { id: Number(inserted.id), isNew: true };
  const existing = await executor
    .selectFrom('outbox')
    .select('id')
    .where('dedupe_key', '=', entry.dedupeKey!)
    .executeTakeFirstOrThrow();
  return { id: Number(existing.id), isNew: false };
}

/** Wakes this process's dispatcher; call it after the commit that added outbox rows. */
export function notifyOutbox(): void {
  outboxSignal.emit('committed');
}
