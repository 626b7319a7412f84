import type { Executor } from '../db/index.ts';
import type { AlertKind, Severity } from './alert-kind.ts';
import type { AlertEvent, AlertMessage } from './alert-message.ts';
import type { AlertDeliveryRow, AlertRow } from './alert.table.ts';

export type AlertStatus = 'open' | 'acked' | 'resolved';
export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** An alert as the rest of paysync sees it. Times are UTC ISO 8601 with milliseconds. */
export interface Alert {
  readonly id: number;
  readonly kind: AlertKind;
  readonly severity: Severity;
  readonly dedupeKey: string;
  readonly subject: string | null;
  readonly title: string;
  readonly body: string;
  readonly detail: Readonly<Record<string, unknown>>;
  readonly status: AlertStatus;
  readonly digested: boolean;
  readonly occurrences: number;
  readonly createdAt: string;
  readonly lastSeenAt: string;
  readonly notifiedAt: string | null;
  readonly ackedAt: string | null;
  readonly ackNote: string | null;
  readonly snoozedUntil: string | null;
  readonly resolvedAt: string | null;
  readonly resolvedBy: string | null;
}

/** One message to one sink and how far it got. */
export interface AlertDelivery {
  readonly id: number;
  readonly alertId: number | null;
  readonly digestId: number | null;
  readonly sink: string;
  readonly event: AlertEvent;
  readonly status: DeliveryStatus;
  readonly attempts: number;
  readonly lastError: string | null;
  readonly nextAttemptAt: string | null;
  readonly deliveredAt: string | null;
  readonly message: AlertMessage;
}

export function toAlert(row: AlertRow): Alert {
  return {
    id: Number(row.id),
    kind: row.kind as AlertKind,
    severity: row.severity as Severity,
    dedupeKey: row.dedupe_key,
    subject: row.subject,
    title: row.title,
    body: row.body,
    detail: JSON.parse(row.detail) as Record<string, unknown>,
    status: row.status as AlertStatus,
    digested: Number(row.digested) === 1,
    occurrences: Number(row.occurrences),
    createdAt: row.created_at,
    lastSeenAt: row.last_seen_at,
    notifiedAt: row.notified_at,
    ackedAt: row.acked_at,
    ackNote: row.ack_note,
    snoozedUntil: row.snoozed_until,
    resolvedAt: row.resolved_at,
    resolvedBy: row.resolved_by,
  };
}

export function toDelivery(row: AlertDeliveryRow): AlertDelivery {
  return {
    id: Number(row.id),
    alertId: row.alert_id === null ? null : Number(row.alert_id),
    digestId: row.digest_id === null ? null : Number(row.digest_id),
    sink: row.sink,
    event: row.event as AlertEvent,
    status: row.status as DeliveryStatus,
    attempts: Number(row.attempts),
    lastError: row.last_error,
    nextAttemptAt: row.next_attempt_at,
    deliveredAt: row.delivered_at,
    message: JSON.parse(row.message) as AlertMessage,
  };
}

export async function findAlert(db: Executor, id: number): Promise<Alert | undefined> {
  const row = await db.selectFrom('alerts').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toAlert(row) : undefined;
}

/** The live (open or acknowledged) alert for a dedupe key. */
export async function findLiveAlert(db: Executor, dedupeKey: string): Promise<Alert | undefined> {
  const row = await db
    .selectFrom('alerts')
    .selectAll()
    .where('open_key', '=', dedupeKey)
    .executeTakeFirst();
  return row ? toAlert(row) : undefined;
}

/** The dedupe keys of the live (open or acknowledged) alerts of one kind. */
export async function liveAlertKeys(db: Executor, kind: string): Promise<Set<string>> {
  const rows = await db
    .selectFrom('alerts')
    .select('open_key')
    .where('kind', '=', kind)
    .where('open_key', 'is not', null)
    .execute();
  return new Set(rows.map((row) => row.open_key!));
}

export interface ListAlertsOptions {
  /** Only open and acknowledged alerts. @defaultValue false */
  readonly open?: boolean;
  /** @defaultValue 100 */
  readonly limit?: number;
}

/** Newest first. */
export async function listAlerts(db: Executor, options: ListAlertsOptions = {}): Promise<Alert[]> {
  let query = db.selectFrom('alerts').selectAll();
  // Named, not `!= 'resolved'`: the open ones are read through (status, …), not by walking
  // every alert ever resolved, newest first, until enough open ones turn up.
  if (options.open) query = query.where('status', 'in', ['open', 'acked']);
  const rows = await query
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(options.limit ?? 100)
    .execute();
  return rows.map(toAlert);
}

/**
 * How many alerts are open and how many acknowledged (a state with none is left out). Resolved
 * ones are not counted: they only ever grow (200,000 in a year of books), counting them read
 * every one on each metrics scrape, and nothing watches their number.
 */
export async function alertCountsByState(
  db: Executor,
): Promise<{ readonly state: AlertStatus; readonly count: number }[]> {
  const rows = await db
    .selectFrom('alerts')
    .select(['status', (eb) => eb.fn.countAll<number | string>().as('count')])
    .where('status', 'in', ['open', 'acked'])
    .groupBy('status')
    .execute();
  return rows.map((row) => ({ state: row.status as AlertStatus, count: Number(row.count) }));
}

/** How many alerts are open or acknowledged (not resolved). */
export async function countOpenAlerts(db: Executor): Promise<number> {
  return (await alertCountsByState(db)).reduce((sum, row) => sum + row.count, 0);
}

export async function deliveriesOf(db: Executor, alertId: number): Promise<AlertDelivery[]> {
  const rows = await db
    .selectFrom('alert_deliveries')
    .selectAll()
    .where('alert_id', '=', alertId)
    .orderBy('id')
    .execute();
  return rows.map(toDelivery);
}

/** Every delivery, oldest first (tests and `alerts list --json`). */
export async function listDeliveries(
  db: Executor,
  filter: { readonly sink?: string; readonly event?: AlertEvent } = {},
): Promise<AlertDelivery[]> {
  let query = db.selectFrom('alert_deliveries').selectAll();
  if (filter.sink) query = query.where('sink', '=', filter.sink);
  if (filter.event) query = query.where('event', '=', filter.event);
  const rows = await query.orderBy('id').execute();
  return rows.map(toDelivery);
}

/** Queues one message per sink; the deliverer sends them. */
export async function insertDeliveries(
  db: Executor,
  message: AlertMessage,
  sinks: readonly string[],
  now: string,
): Promise<void> {
  if (sinks.length === 0) return;
  await db
    .insertInto('alert_deliveries')
    .values(
      sinks.map((sink) => ({
        alert_id: message.alertId ?? null,
        digest_id: message.digestId ?? null,
        sink,
        event: message.event,
        message: JSON.stringify(message),
        status: 'pending',
        attempts: 0,
        last_error: null,
        next_attempt_at: now,
        claimed_until: null,
        created_at: now,
        delivered_at: null,
      })),
    )
    .execute();
}
