import type { Kysely } from 'kysely';
import type { Database } from '../db/index.ts';
import type { Logger } from '../logger.ts';
import type { InsertInboxResult, NewInboxEvent, StoredInboxEvent } from './inbox-event.ts';
import { insertInboxEvents } from './inbox.repository.ts';
import { reasonOf } from '../error-reason.ts';

/** The inbox could not store an event; the sender must retry (the receiver answers 503). */
export class InboxUnavailableError extends Error {
  override readonly name = 'InboxUnavailableError';
  readonly code = 'inbox_unavailable' as const;
  constructor(override readonly cause: unknown) {
    super(`the inbox could not store the event: ${reasonOf(cause)}`);
  }
}

export interface InboxIntakeSettings {
  /**
   * Hands the rows this commit stored for the first time to the queue, in one round trip:
   * a batch job for the classified ones, ingest jobs for the rest. Rows stored processed
   * (ignored events) are not handed over.
   */
  readonly enqueue: (stored: readonly StoredInboxEvent[]) => Promise<void>;
  /** Longest wait for the queue before answering anyway. @defaultValue 1000 */
  readonly enqueueTimeoutMs?: number;
  /**
   * Events from concurrent requests gathered into one commit, at most; a sender's batch is
   * never split, so a larger batch commits alone. @defaultValue 100
   */
  readonly maxBatch?: number;
  readonly logger: Logger;
}

export interface AcceptResult extends InsertInboxResult {
  /** False when the queue did not take the job in time; the recovery sweep will. */
  readonly enqueued: boolean;
}

export interface InboxIntake {
  /**
   * Resolves once the event is committed and its ingest job was offered to the queue;
   * rejects with {@link InboxUnavailableError} when the commit failed.
   */
  accept(event: NewInboxEvent): Promise<AcceptResult>;
  /**
   * {@link accept} for the events of one request (a sender's batch): all committed together
   * or none, results in the order given.
   */
  acceptAll(events: readonly NewInboxEvent[]): Promise<AcceptResult[]>;
}

interface Pending {
  readonly events: readonly NewInboxEvent[];
  readonly resolve: (results: AcceptResult[]) => void;
  readonly reject: (error: unknown) => void;
}

/** Requests from the head of the queue, whole, up to `maxEvents` events (at least one request). */
function takeRequests(waiting: Pending[], maxEvents: number): Pending[] {
  let count = 0;
  let taken = 0;
  while (
    taken < waiting.length &&
    (taken === 0 || count + waiting[taken]!.events.length <= maxEvents)
  ) {
    count += waiting[taken]!.events.length;
    taken += 1;
  }
  return waiting.splice(0, taken);
}

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * "Durable before 2xx", with group commit. Events arriving together are committed in one
 * commit (one statement, or one transaction when they need several), and only after that
 * commit is their work enqueued (see `enqueue`), in one round trip. A sender's batch is one request
 * here: its events commit together or not at all.
 * Each caller still waits for its own event's commit, so no 2xx precedes durability; batching
 * only shares the cost of a commit (a WAL write on SQLite, a round trip on PostgreSQL) among
 * the requests that wait for one anyway.
 *
 * A failed commit rejects every event of that batch (the sender retries each). A failed or
 * slow enqueue is logged and swallowed: the rows are safe, and the recovery sweep enqueues
 * rows nobody processed. Duplicates are not enqueued again.
 */
export function createInboxIntake(
  db: Kysely<Database>,
  settings: InboxIntakeSettings,
): InboxIntake {
  const maxBatch = settings.maxBatch ?? 100;
  const timeoutMs = settings.enqueueTimeoutMs ?? 1000;
  const waiting: Pending[] = [];
  let draining = false;

  async function enqueueThenAnswer(
    batch: readonly Pending[],
    events: readonly NewInboxEvent[],
    stored: InsertInboxResult[],
  ) {
    const fresh: StoredInboxEvent[] = [];
    stored.forEach((result, index) => {
      const event = events[index]!;
      if (!result.duplicate && !event.ignored) fresh.push({ inboxId: result.inboxId, event });
    });
    let enqueued = true;
    if (fresh.length > 0) {
      try {
        await within(settings.enqueue(fresh), timeoutMs);
      } catch (error) {
        enqueued = false;
        settings.logger.warn(
          { inboxIds: fresh.map((row) => row.inboxId), reason: reasonOf(error) },
          'events stored but not enqueued; the inbox recovery sweep will enqueue them',
        );
      }
    }
    let next = 0;
    for (const pending of batch) {
      const results = stored.slice(next, next + pending.events.length);
      next += pending.events.length;
      pending.resolve(
        results.map((result) => ({ ...result, enqueued: !result.duplicate && enqueued })),
      );
    }
  }

  async function drain() {
    try {
      await drainBatches();
    } finally {
      draining = false;
    }
  }

  async function drainBatches() {
    while (waiting.length > 0) {
      const batch = takeRequests(waiting, maxBatch);
      const events = batch.flatMap((pending) => pending.events);
      let stored: InsertInboxResult[];
      try {
        stored = await insertInboxEvents(db, events);
      } catch (error) {
        const failure = new InboxUnavailableError(error);
        for (const pending of batch) pending.reject(failure);
        continue;
      }
      // Not awaited: the next batch commits while this one's jobs travel to Redis.
      void enqueueThenAnswer(batch, events, stored);
    }
  }

  function acceptAll(events: readonly NewInboxEvent[]): Promise<AcceptResult[]> {
    if (events.length === 0) return Promise.resolve([]);
    return new Promise<AcceptResult[]>((resolve, reject) => {
      waiting.push({ events, resolve, reject });
      if (draining) return;
      draining = true;
      // Let the requests already read in this turn of the event loop join the batch.
      setImmediate(() => void drain());
    });
  }

  return {
    acceptAll,
    async accept(event) {
      const [result] = await acceptAll([event]);
      return result!;
    },
  };
}
