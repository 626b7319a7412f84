import type { Executor } from '../db/index.ts';

/** A delivery this process holds (its lease), with what its POST needs. */
export interface ClaimedDelivery {
  readonly id: number;
  readonly attempts: number;
  readonly subject: string | null;
  readonly claimedUntil: string;
  /** The emitting booking's `traceparent`, which the attempt's span continues; null: none. */
  readonly traceparent: string | null;
  readonly endpoint: {
    readonly id: number;
    readonly endpointId: string;
    readonly url: string;
    readonly secret: string;
    readonly previousSecret: string | null;
    readonly previousSecretExpiresAt: string | null;
    readonly failingSince: string | null;
  };
  readonly event: {
    readonly id: number;
    readonly event_id: string;
    readonly type: string;
    readonly occurred_at: string;
    readonly environment: string;
    readonly data: string;
  };
}

export interface ClaimOptions {
  readonly now: Date;
  /** How long the lease holds: the POST's timeout and a margin for recording it. */
  readonly leaseMs: number;
  /** At most this many. */
  readonly limit: number;
}

/**
 * Claims up to `limit` due deliveries: pending, due (`next_attempt_at` ≤ now), to an enabled
 * endpoint, not leased by another deliverer, and first in line for their endpoint and subject
 * (no pending delivery of an earlier event of the same endpoint and subject: that is the order
 * guarantee; one subject's stuck delivery holds back only that subject).
 *
 * The candidates are read through `relay_deliveries_due` (state, next_attempt_at, id) in due
 * order, the "first in line" check is one probe of `relay_deliveries_order` each; the claim is
 * a conditional UPDATE (still pending, lease free), so two deliverers (processes on one
 * PostgreSQL) never hold one delivery at once: the second UPDATE finds the lease taken.
 */
export async function claimDueDeliveries(
  db: Executor,
  options: ClaimOptions,
): Promise<ClaimedDelivery[]> {
  if (options.limit <= 0) return [];
  const now = options.now.toISOString();
  const candidates = await db
    .selectFrom('relay_deliveries as d')
    .innerJoin('relay_endpoints as e', 'e.id', 'd.endpoint_id')
    .innerJoin('relay_events as ev', 'ev.id', 'd.event_id')
    .select([
      'd.id',
      'd.attempts',
      'd.subject',
      'e.id as endpoint_row_id',
      'e.endpoint_id as endpoint_public_id',
      'e.url',
      'e.secret',
      'e.previous_secret',
      'e.previous_secret_expires_at',
      'e.failing_since',
      'ev.id as event_row_id',
      'ev.event_id',
      'ev.type',
      'ev.occurred_at',
      'ev.environment',
      'ev.data',
      'ev.traceparent',
    ])
    .where('d.state', '=', 'pending')
    .where('d.next_attempt_at', '<=', now)
    .where('e.status', '=', 'enabled')
    .where((eb) => eb.or([eb('d.claimed_until', 'is', null), eb('d.claimed_until', '<=', now)]))
    .where((eb) =>
      eb.or([
        eb('d.subject', 'is', null),
        eb.not(
          eb.exists(
            eb
              .selectFrom('relay_deliveries as earlier')
              .select('earlier.id')
              .whereRef('earlier.endpoint_id', '=', 'd.endpoint_id')
              .whereRef('earlier.subject', '=', 'd.subject')
              .where('earlier.state', '=', 'pending')
              .whereRef('earlier.event_id', '<', 'd.event_id'),
          ),
        ),
      ]),
    )
    .orderBy('d.next_attempt_at')
    .orderBy('d.id')
    .limit(options.limit)
    .execute();
  if (candidates.length === 0) return [];

  const claimedUntil = new Date(options.now.getTime() + options.leaseMs).toISOString();
  const taken = await db
    .updateTable('relay_deliveries')
    .set({ claimed_until: claimedUntil })
    .where(
      'id',
      'in',
      candidates.map((row) => row.id),
    )
    .where('state', '=', 'pending')
    .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', now)]))
    .returning('id')
    .execute();
  const ours = new Set(taken.map((row) => Number(row.id)));
  return candidates
    .filter((row) => ours.has(row.id))
    .map((row) => ({
      id: row.id,
      attempts: row.attempts,
      subject: row.subject,
      claimedUntil,
      traceparent: row.traceparent,
      endpoint: {
        id: row.endpoint_row_id,
        endpointId: row.endpoint_public_id,
        url: row.url,
        secret: row.secret,
        previousSecret: row.previous_secret,
        previousSecretExpiresAt: row.previous_secret_expires_at,
        failingSince: row.failing_since,
      },
      event: {
        id: row.event_row_id,
        event_id: row.event_id,
        type: row.type,
        occurred_at: row.occurred_at,
        environment: row.environment,
        data: row.data,
      },
    }));
}
