import { dialectOfDb, type Executor } from '../db/index.ts';
import type { ClaimedDelivery } from './claim-deliveries.ts';
import type { PostResult } from './post-event.ts';
import { nextAttemptAt } from './retry-schedule.ts';

/** What became of a delivery after one attempt. */
export interface RecordedAttempt {
  /** `pending` after a failure with attempts left, or after a 410 (it waits for the endpoint). */
  readonly state: 'delivered' | 'pending' | 'gave_up';
  /** This attempt's number (1 for the first). */
  readonly attempt: number;
  readonly nextAttemptAt: string | null;
  /** The endpoint's `failing_since` after this attempt: null after a success. */
  readonly failingSince: string | null;
  /** True when this 410 disabled the endpoint (false when it was disabled already). */
  readonly disabledByGone: boolean;
}

/** The longest `error` the delivery log keeps. */
const ERROR_CHARS = 300;

/** Text a database column takes: PostgreSQL refuses NUL in `text`. */
function storable(text: string | undefined, max?: number): string | null {
  if (text === undefined) return null;
  const clean = text.replaceAll('\u0000', '');
  return max === undefined ? clean : clean.slice(0, max);
}

/**
 * Records one attempt in one transaction: its row in the delivery log (`relay_attempts`, with
 * at most 1 KB of the answer), the delivery's new state, and the endpoint's health:
 * - 2xx: delivered; the endpoint's `failing_since` cleared, `last_success_at` set;
 * - 410 Gone: the endpoint is disabled at once; the delivery stays pending and due, so it goes
 *   out again when the merchant enables the endpoint;
 * - anything else: the next attempt by the retry schedule, or gave_up after the last; later
 *   pending deliveries of the same subject are pushed to that time too (they could not go
 *   before it anyway, and so the claim query does not read them again and again); the
 *   endpoint's `failing_since` set if it was not.
 * The delivery is updated only while still pending: a lease that ran out and was taken by
 * another deliverer cannot be finished twice.
 */
export async function recordAttempt(
  db: Executor,
  delivery: ClaimedDelivery,
  result: PostResult,
  times: {
    readonly attemptedAt: Date;
    readonly now: Date;
    readonly random?: () => number;
    /** The wait before each attempt (`config.relay.retryScheduleMs`). @defaultValue the documented one */
    readonly schedule?: readonly number[];
    /**
     * After a success, whether to write the endpoint's health (`last_success_at`, and
     * `failing_since` cleared). The deliverer writes it after a failure run, and otherwise at
     * most once a second per endpoint: a write per delivery would be the busiest row of all.
     * @defaultValue true
     */
    readonly touchEndpoint?: boolean;
  },
): Promise<RecordedAttempt> {
  const attempt = delivery.attempts + 1;
  const attemptedAt = times.attemptedAt.toISOString();
  const now = times.now.toISOString();
  const delivered = result.outcome === 'delivered';
  const gone = result.outcome === 'gone';
  const retryAt =
    delivered || gone ? undefined : nextAttemptAt(attempt, times.now, times.random, times.schedule);
  const state: RecordedAttempt['state'] = delivered
    ? 'delivered'
    : gone || retryAt !== undefined
      ? 'pending'
      : 'gave_up';
  const next = gone ? now : (retryAt?.toISOString() ?? null);
  const error = storable(result.error, ERROR_CHARS);

  const logRow = {
    delivery_id: delivery.id,
    endpoint_id: delivery.endpoint.id,
    event_id: delivery.event.id,
    attempt,
    attempted_at: attemptedAt,
    duration_ms: result.durationMs,
    outcome: result.outcome,
    status_code: result.statusCode ?? null,
    response_excerpt: storable(result.excerpt),
    error,
  };
  const outcome = {
    state,
    attempts: attempt,
    claimed_until: null,
    last_attempt_at: attemptedAt,
    last_status: result.statusCode ?? null,
    last_error: error,
    ...(next !== null ? { next_attempt_at: next } : {}),
    finished_at: state === 'pending' ? null : now,
  };

  if (delivered && times.touchEndpoint === false && dialectOfDb(db) === 'postgres') {
    // The common case, in one statement (one round trip, atomic by itself): the log row
    // written by a data-modifying CTE of the delivery's update.
    await db
      .with('logged', (qb) => qb.insertInto('relay_attempts').values(logRow))
      .updateTable('relay_deliveries')
      .set(outcome)
      .where('id', '=', delivery.id)
      .where('state', '=', 'pending')
      .execute();
    return { state, attempt, nextAttemptAt: null, failingSince: null, disabledByGone: false };
  }

  return db.transaction().execute(async (trx) => {
    await trx.insertInto('relay_attempts').values(logRow).execute();
    await trx
      .updateTable('relay_deliveries')
      .set(outcome)
      .where('id', '=', delivery.id)
      .where('state', '=', 'pending')
      .execute();
    if (retryAt !== undefined && delivery.subject !== null) {
      await trx
        .updateTable('relay_deliveries')
        .set({ next_attempt_at: next! })
        .where('endpoint_id', '=', delivery.endpoint.id)
        .where('subject', '=', delivery.subject)
        .where('state', '=', 'pending')
        .where('event_id', '>', delivery.event.id)
        .where('next_attempt_at', '<', next!)
        .execute();
    }

    if (delivered) {
      if (times.touchEndpoint === false) {
        return { state, attempt, nextAttemptAt: null, failingSince: null, disabledByGone: false };
      }
      await trx
        .updateTable('relay_endpoints')
        .set({ failing_since: null, last_success_at: now })
        .where('id', '=', delivery.endpoint.id)
        .execute();
      return { state, attempt, nextAttemptAt: null, failingSince: null, disabledByGone: false };
    }
    await trx
      .updateTable('relay_endpoints')
      .set({ failing_since: attemptedAt })
      .where('id', '=', delivery.endpoint.id)
      .where('failing_since', 'is', null)
      .execute();
    let disabledByGone = false;
    if (gone) {
      const disabled = await trx
        .updateTable('relay_endpoints')
        .set({
          status: 'disabled',
          disabled_reason: `the endpoint answered 410 Gone at ${now}`,
          disabled_at: now,
        })
        .where('id', '=', delivery.endpoint.id)
        .where('status', '=', 'enabled')
        .executeTakeFirst();
      disabledByGone = Number(disabled.numUpdatedRows) > 0;
    }
    const endpoint = await trx
      .selectFrom('relay_endpoints')
      .select('failing_since')
      .where('id', '=', delivery.endpoint.id)
      .executeTakeFirst();
    return {
      state,
      attempt,
      nextAttemptAt: next,
      failingSince: endpoint?.failing_since ?? attemptedAt,
      disabledByGone,
    };
  });
}
