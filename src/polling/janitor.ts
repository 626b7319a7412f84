import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { JanitorSettings } from '../config/index.ts';
import type { Database } from '../db/index.ts';
import { claimDuePoll, duePolls, type DuePoll, type PollPlan } from '../ledger/index.ts';
import { enqueueSync, type Queues } from '../queues/enqueue.ts';
import { traceparentOf, type TraceContext } from '../tracing/index.ts';
import { flagStuckItems } from './stuck-items.ts';

export interface JanitorDependencies {
  readonly db: Kysely<Database>;
  readonly queues: Queues;
  readonly logger: Logger;
  readonly settings: JanitorSettings;
  /** The tick's span: the polls it queues continue its trace (docs/observability.md). */
  readonly trace?: TraceContext | undefined;
}

/** What one janitor run did. */
export interface JanitorCounts {
  /** Items whose poll had come. */
  readonly due: number;
  /** Polls queued (a due item another janitor claimed first is not counted). */
  readonly polled: number;
  /** Items newly flagged `stuck`. */
  readonly stuck: number;
}

/** Polls claimed and queued per transaction: keeps SQLite's write lock short. */
const CLAIM_CHUNK = 250;

export function pollPlanOf(settings: JanitorSettings): PollPlan {
  return settings.scheduleMs;
}

/**
 * One janitor run: every non-terminal item whose poll has come is moved to its next slot and
 * a sync (`via = poll`) is queued for it; then items past their SLA are flagged `stuck`. It
 * only queues: the sync workers fetch under the shared upstream rate limit, and their
 * per-item deduplication absorbs a poll of an item whose fetch is already waiting.
 */
export async function runJanitor(deps: JanitorDependencies, now: Date): Promise<JanitorCounts> {
  const plan = pollPlanOf(deps.settings);
  const due = await duePolls(deps.db, now.toISOString(), deps.settings.batchSize);
  let polled = 0;
  for (let start = 0; start < due.length; start += CLAIM_CHUNK) {
    const chunk = due.slice(start, start + CLAIM_CHUNK);
    // Claim first, then queue: a janitor that dies in between loses one poll, and the next
    // slot polls again; queueing first could poll twice for one slot.
    const claimed = await deps.db.transaction().execute(async (trx) => {
      const won: DuePoll[] = [];
      for (const poll of chunk) {
        if (await claimDuePoll(trx, poll, plan, now)) won.push(poll);
      }
      return won;
    });
    for (const poll of claimed) {
      await enqueueSync(deps.queues, {
        kind: poll.kind,
        id: poll.id,
        ...(poll.kind === 'transfer' && poll.reference ? { reference: poll.reference } : {}),
        via: 'poll',
        traceparent: traceparentOf(deps.trace),
      });
    }
    polled += claimed.length;
  }
  const stuck = await flagStuckItems(deps, now);
  if (due.length > 0 || stuck > 0) {
    deps.logger.info({ due: due.length, polled, stuck }, 'janitor run');
  }
  return { due: due.length, polled, stuck };
}
