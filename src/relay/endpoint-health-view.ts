import type { Kysely } from 'kysely';
import type { Database } from '../db/index.ts';
import type { AttemptOutcome } from './post-event.ts';

const DAY_MS = 86_400_000;

/** What `endpoints list`, the API and the Endpoints page say of an endpoint's delivery. */
export interface EndpointHealth {
  /** `disabled`; `failing` (its last attempts failed, see failingSince); else `healthy`. */
  readonly state: 'healthy' | 'failing' | 'disabled';
  readonly failingSince: string | null;
  readonly lastSuccessAt: string | null;
  /** Deliveries still to make (waiting, retrying, or held back by an earlier one of their item). */
  readonly pending: number;
  /** When the oldest event still pending for it was emitted; null when none is. */
  readonly oldestPendingAt: string | null;
  /** Its age in ms at the time of the reading; null when none is pending. */
  readonly oldestPendingAgeMs: number | null;
  /** Attempts (POSTs) of the last 24 hours, by outcome. */
  readonly last24h: Readonly<Record<AttemptOutcome, number>>;
}

const NO_ATTEMPTS: Record<AttemptOutcome, number> = {
  delivered: 0,
  failed: 0,
  timeout: 0,
  error: 0,
  gone: 0,
};

interface HealthSource {
  readonly id: number;
  readonly status: string;
  readonly failing_since: string | null;
  readonly last_success_at: string | null;
}

/** The health of each endpoint (by its numeric id), read in two grouped queries. */
export async function endpointHealth(
  db: Kysely<Database>,
  endpoints: readonly HealthSource[],
  now: Date,
): Promise<Map<number, EndpointHealth>> {
  const health = new Map<number, EndpointHealth>();
  if (endpoints.length === 0) return health;
  const ids = endpoints.map((endpoint) => endpoint.id);
  const pending = await db
    .selectFrom('relay_deliveries')
    .innerJoin('relay_events', 'relay_events.id', 'relay_deliveries.event_id')
    .select((eb) => [
      'relay_deliveries.endpoint_id as endpointId',
      eb.fn.countAll<number | string>().as('count'),
      eb.fn.min('relay_events.created_at').as('oldest'),
    ])
    .where('relay_deliveries.endpoint_id', 'in', ids)
    .where('relay_deliveries.state', '=', 'pending')
    .groupBy('relay_deliveries.endpoint_id')
    .execute();
  const since = new Date(now.getTime() - DAY_MS).toISOString();
  const attempts = await db
    .selectFrom('relay_attempts')
    .select((eb) => ['endpoint_id', 'outcome', eb.fn.countAll<number | string>().as('count')])
    .where('endpoint_id', 'in', ids)
    .where('attempted_at', '>=', since)
    .groupBy(['endpoint_id', 'outcome'])
    .execute();
  for (const endpoint of endpoints) {
    const waiting = pending.find((row) => row.endpointId === endpoint.id);
    const oldest = waiting?.oldest ?? null;
    const last24h = { ...NO_ATTEMPTS };
    for (const row of attempts.filter((a) => a.endpoint_id === endpoint.id)) {
      if (row.outcome in last24h) last24h[row.outcome as AttemptOutcome] = Number(row.count);
    }
    health.set(endpoint.id, {
      state:
        endpoint.status === 'disabled'
          ? 'disabled'
          : endpoint.failing_since !== null
            ? 'failing'
            : 'healthy',
      failingSince: endpoint.failing_since,
      lastSuccessAt: endpoint.last_success_at,
      pending: Number(waiting?.count ?? 0),
      oldestPendingAt: oldest,
      oldestPendingAgeMs:
        oldest === null ? null : Math.max(0, now.getTime() - new Date(oldest).getTime()),
      last24h,
    });
  }
  return health;
}

/** One POST of the delivery log, as shown (the excerpt is text; never render it as HTML). */
export interface AttemptView {
  readonly attemptedAt: string;
  /** `evt_…` */
  readonly eventId: string;
  readonly eventType: string;
  readonly subject: string | null;
  /** 1 for the first POST of the delivery. */
  readonly attempt: number;
  readonly outcome: string;
  readonly statusCode: number | null;
  readonly durationMs: number;
  /** At most 1 KB of the answer. */
  readonly excerpt: string | null;
  readonly error: string | null;
}

/** An endpoint's attempts, newest first. */
export async function recentAttempts(
  db: Kysely<Database>,
  endpointRowId: number,
  page: { readonly limit: number; readonly offset: number },
): Promise<AttemptView[]> {
  const rows = await db
    .selectFrom('relay_attempts')
    .innerJoin('relay_events', 'relay_events.id', 'relay_attempts.event_id')
    .select([
      'relay_attempts.attempted_at',
      'relay_events.event_id',
      'relay_events.type',
      'relay_events.subject',
      'relay_attempts.attempt',
      'relay_attempts.outcome',
      'relay_attempts.status_code',
      'relay_attempts.duration_ms',
      'relay_attempts.response_excerpt',
      'relay_attempts.error',
    ])
    .where('relay_attempts.endpoint_id', '=', endpointRowId)
    .orderBy('relay_attempts.attempted_at', 'desc')
    .orderBy('relay_attempts.id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return rows.map((row) => ({
    attemptedAt: row.attempted_at,
    eventId: row.event_id,
    eventType: row.type,
    subject: row.subject,
    attempt: Number(row.attempt),
    outcome: row.outcome,
    statusCode: row.status_code === null ? null : Number(row.status_code),
    durationMs: Number(row.duration_ms),
    excerpt: row.response_excerpt,
    error: row.error,
  }));
}
